package scheduler

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
)

// connTimeout bounds one client conversation on the socket.
const connTimeout = 2 * time.Second

// maxRequest bounds one request line: a context request carries a whole
// hook payload.
const maxRequest = notice.MaxLine

// server answers control requests, one JSON line in, one out, per
// connection.
type server struct {
	ln     net.Listener
	handle func(context.Context, notice.Request) control.Response
	log    *slog.Logger
	wg     sync.WaitGroup
}

// serve accepts until the listener is closed.
func (s *server) serve(ctx context.Context) error {
	backoff := 5 * time.Millisecond
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			s.log.Warn("accept on control socket", "err", err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.answer(ctx, conn)
		}()
	}
}

// close stops accepting (removing a Unix socket file) and waits for the
// conversations in progress.
func (s *server) close() error {
	err := s.ln.Close()
	s.wg.Wait()
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("close control socket: %w", err)
	}
	return nil
}

func (s *server) answer(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(connTimeout)); err != nil {
		return
	}
	line, err := bufio.NewReader(io.LimitReader(conn, maxRequest)).ReadBytes('\n')
	var resp control.Response
	var req notice.Request
	switch {
	case err != nil:
		resp = control.Response{Message: fmt.Sprintf("read request: %v; send one JSON line", err)}
	case json.Unmarshal(line, &req) != nil:
		resp = control.Response{Message: "request is not a JSON object; send one JSON line such as {\"op\":\"status\"}"}
	default:
		if req.Op == notice.OpWait && req.WaitMS > 0 {
			// A wait may hold the connection for as long as it asks, within
			// the bound the handler applies.
			wait := time.Duration(min(req.WaitMS, notice.MaxWaitMS)) * time.Millisecond
			if err := conn.SetDeadline(time.Now().Add(wait + connTimeout)); err != nil {
				return
			}
		}
		if req.Op == notice.OpSearch {
			if err := conn.SetDeadline(time.Now().Add(control.ReadTimeout)); err != nil {
				return
			}
		}
		if req.Op == notice.OpContext && req.TimeoutMS > 0 {
			// A context hook may wait for a consolidation first; the
			// client says how long it still waits for the answer.
			wait := time.Duration(min(req.TimeoutMS, notice.MaxWaitMS)) * time.Millisecond
			if err := conn.SetDeadline(time.Now().Add(wait + connTimeout)); err != nil {
				return
			}
		}
		resp = s.handle(ctx, req)
	}
	out, err := json.Marshal(resp)
	if err != nil {
		s.log.Error("encode control answer", "err", err)
		return
	}
	if _, err := conn.Write(append(out, '\n')); err != nil {
		s.log.Debug("write control answer", "err", err)
	}
}
