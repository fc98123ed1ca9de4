package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one inbound JSON-RPC line; a longer one is answered
// with an invalid-request error and skipped.
const MaxLineBytes = 16 << 20

// maxDepth bounds the nesting of one message (the SDK's decoder and ours
// would otherwise spend time and stack on a line of ten thousand '[').
const maxDepth = 256

// LineTransport is the stdio transport of `recollect mcp`: newline-
// delimited JSON-RPC like the SDK's IOTransport, but a malformed line never
// ends the session. Each line is checked before the SDK sees it; a line
// that is not JSON is answered with -32700 (parse error), one that is JSON
// but not a single JSON-RPC 2.0 message (an array, a batch, "jsonrpc":
// "1.0", an object or boolean id, nesting deeper than maxDepth, an
// over-long line) with -32600 (invalid request), with the request's id
// when it can be read and null otherwise; then the next line is served.
type LineTransport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
}

var _ mcp.Transport = (*LineTransport)(nil)

// Connect starts reading lines.
func (t *LineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{r: t.Reader, w: t.Writer, incoming: make(chan lineOrErr), closed: make(chan struct{}),
		pending: map[any]bool{}, answered: make(chan struct{}, 1)}
	go c.readLoop()
	return c, nil
}

type lineOrErr struct {
	msg jsonrpc.Message
	err error
}

// lineConn is one session over a LineTransport.
type lineConn struct {
	r        io.ReadCloser
	w        io.WriteCloser
	writeMu  sync.Mutex
	incoming chan lineOrErr
	closed   chan struct{}
	once     sync.Once
	closeErr error

	// pending holds the ids of the requests handed to the server and not
	// yet answered: at the end of input, Read waits for them, so a
	// request read before stdin closed is completed and answered before
	// the session ends.
	mu       sync.Mutex
	pending  map[any]bool
	answered chan struct{}
}

// readLoop reads lines until EOF or Close, answering bad ones itself.
func (c *lineConn) readLoop() {
	br := bufio.NewReaderSize(c.r, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if msg, bad := check(line, tooLong); bad != nil {
				if werr := c.writeRaw(bad); werr != nil {
					c.send(lineOrErr{err: werr})
					return
				}
			} else if !c.send(lineOrErr{msg: msg}) {
				return
			}
		}
		if err != nil {
			c.send(lineOrErr{err: err})
			return
		}
	}
}

// send hands one result to Read; false once the connection is closed.
func (c *lineConn) send(v lineOrErr) bool {
	select {
	case c.incoming <- v:
		return true
	case <-c.closed:
		return false
	}
}

// readLine reads one line without its newline, holding at most
// MaxLineBytes of it; tooLong reports that the rest was discarded. err is
// io.EOF (or the read error) after the last line.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxLineBytes {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// check decodes one line, or returns the error response it deserves.
func check(line []byte, tooLong bool) (jsonrpc.Message, []byte) {
	if tooLong {
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: line longer than %d bytes", MaxLineBytes))
	}
	switch {
	case !utf8.Valid(line):
		return nil, errorLine(nil, jsonrpc.CodeParseError, "parse error: not UTF-8")
	case bytes.IndexByte(line, 0) >= 0:
		return nil, errorLine(nil, jsonrpc.CodeParseError, "parse error: NUL byte in the line")
	case depth(line) > maxDepth:
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: nested deeper than %d levels", maxDepth))
	case !json.Valid(line):
		return nil, errorLine(nil, jsonrpc.CodeParseError, "parse error: not one complete JSON value (truncated or malformed line)")
	}
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] == '[' {
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, "invalid request: batches (JSON arrays) are not supported; send one message per line")
	}
	if trimmed[0] != '{' {
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, "invalid request: a message is a JSON object")
	}
	var head struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
	}
	if err := json.Unmarshal(trimmed, &head); err != nil {
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	id, idOK := validID(head.ID)
	if !idOK {
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, "invalid request: id must be a string, a number or null")
	}
	if head.JSONRPC == nil || *head.JSONRPC != "2.0" {
		return nil, errorLine(id, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	if len(head.Method) > 0 && head.Method[0] != '"' {
		return nil, errorLine(id, jsonrpc.CodeInvalidRequest, "invalid request: method must be a string")
	}
	msg, err := jsonrpc.DecodeMessage(trimmed)
	if err != nil {
		return nil, errorLine(id, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	return msg, nil
}

// validID reports whether raw (absent, or a JSON value) is an id JSON-RPC
// allows, and returns it for an error response (nil: null).
func validID(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	switch raw[0] {
	case '"':
		return raw, true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return raw, true
	}
	return nil, false
}

// depth is the deepest nesting of arrays and objects in a JSON text,
// counted outside strings.
func depth(data []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, b := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '[' || b == '{':
			d++
			deepest = max(deepest, d)
		case b == ']' || b == '}':
			d--
		}
	}
	return deepest
}

// errorLine is a JSON-RPC error response with id (null when nil).
func errorLine(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	if err != nil { // unreachable: every field marshals
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	return data
}

func (c *lineConn) writeRaw(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.w.Write(append(data, '\n'))
	return err
}

// Read returns the next well-formed message. At the end of input it
// returns io.EOF only once every request already handed over has been
// answered.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case v := <-c.incoming:
		if req, ok := v.msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			c.mu.Lock()
			c.pending[req.ID.Raw()] = true
			c.mu.Unlock()
			if req.Method == "tools/call" {
				req.Params = dropNullArguments(req.Params)
			}
		}
		if v.err != nil {
			c.drain(ctx)
		}
		return v.msg, v.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// drain waits until no request is pending, or the session is closed or
// cancelled.
func (c *lineConn) drain(ctx context.Context) {
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-ctx.Done():
			return
		case <-c.closed:
			return
		}
	}
}

// Write sends one message as a line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	err = c.writeRaw(data)
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		c.mu.Lock()
		delete(c.pending, resp.ID.Raw())
		c.mu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return err
}

// Close closes both sides; safe to call more than once.
func (c *lineConn) Close() error {
	c.once.Do(func() {
		c.closeErr = errors.Join(c.r.Close(), c.w.Close())
		close(c.closed)
	})
	return c.closeErr
}

// SessionID is empty: a stdio session has no id.
func (c *lineConn) SessionID() string { return "" }

// dropNullArguments removes the arguments of a tool call whose value is
// null: a client sends null for a field left blank (the MCP Inspector
// does), which means absent, not a value of the wrong type.
func dropNullArguments(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(p["arguments"], &args) != nil || args == nil {
		return params
	}
	changed := false
	for k, v := range args {
		if string(bytes.TrimSpace(v)) == "null" {
			delete(args, k)
			changed = true
		}
	}
	if !changed {
		return params
	}
	a, err := json.Marshal(args)
	if err != nil {
		return params
	}
	p["arguments"] = a
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}
