package sources

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"unicode/utf8"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/regfile"
)

// errMoved means another copier advanced the file while this one read it;
// the pass is abandoned and started again from the stored progress.
var errMoved = errors.New("progress moved underneath")

// fingerprintBytes is how much of the file's start and of the bytes just
// before the offset the fingerprint hashes.
const fingerprintBytes = 1024

// batchBytes bounds the bytes of lines held for one transaction.
const batchBytes = 16 << 20

// maxLogged is how many bad lines per pass are logged one by one.
const maxLogged = 5

// fingerprint identifies the part of a file already read: hashes of its
// first bytes and of the bytes before offset. Appending never changes it;
// rewriting what was read does.
func fingerprint(f *os.File, offset int64) (string, error) {
	n := min(offset, fingerprintBytes)
	head := make([]byte, n)
	if _, err := f.ReadAt(head, 0); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return "", fmt.Errorf("read start: %w", err)
	}
	tail := make([]byte, n)
	if _, err := f.ReadAt(tail, offset-n); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return "", fmt.Errorf("read before offset %d: %w", offset, err)
	}
	h, t := sha256.Sum256(head), sha256.Sum256(tail)
	return "v1:" + hex.EncodeToString(h[:8]) + ":" + hex.EncodeToString(t[:8]), nil
}

// passState is one read of one file, from start to its last complete line.
type passState struct {
	f           selected
	file        *os.File
	dev, ino    int64 // where the file was read from, when hasID
	hasID       bool
	size        int64
	stored      progress // the row as this pass last saw or wrote it
	lineNo      int64    // lines consumed before the next one
	rereadUntil int64    // lines starting before this may already be stored
	occ         map[[32]byte]int64
	logged      int
	bad         int64
	// cwd is the project the lines read so far name, for kinds whose
	// event lines carry none (Codex names it in session_meta and
	// turn_context).
	cwd string
	// codex names a rollout's events by content (see codexCounter).
	codex *codexCounter
}

// pass copies the file's new complete lines in batches.
func (c *Copier) pass(ctx context.Context, f selected, rep *Report) error {
	file, fi, err := regfile.Open(f.path)
	if err != nil {
		return fileError(f.path, err)
	}
	defer file.Close()
	pr, err := c.identify(ctx, &f, file, fi)
	if err != nil {
		return err
	}
	st := &passState{f: f, file: file, size: fi.Size(), stored: pr, lineNo: pr.lines, rereadUntil: pr.rereadUntil}
	st.dev, st.ino, st.hasID = fileID(fi)
	switch f.kind {
	case Codex:
		st.cwd = c.sel.cwdOf(f.path)
	case Gemini:
		st.cwd = c.sel.geminiCwd(f.path)
	}
	start := pr.offset
	if pr.exists && pr.offset > 0 {
		reason := ""
		if fi.Size() < pr.offset {
			reason = "file shrank"
		} else if fp, err := fingerprint(file, pr.offset); err != nil {
			return fileError(f.path, err)
		} else if fp != pr.fingerprint {
			reason = "start of file changed"
		}
		if reason != "" {
			c.Log.Info("transcript rewritten; reading it again from the start", "file", f.path, "reason", reason, "offset", pr.offset, "size", fi.Size())
			st.rereadUntil = max(pr.rereadUntil, pr.offset)
			start, st.lineNo = 0, 0
			rep.Reread++
		}
	}
	if start == fi.Size() {
		return nil
	}
	if isGeminiDoc(f) {
		return c.passDoc(ctx, st, rep)
	}
	if f.kind == Codex {
		st.codex = newCodexCounter(f.path)
		if err := st.countCodexPrefix(start); err != nil {
			return fileError(f.path, err)
		}
	}
	if start == 0 || start < st.rereadUntil {
		// Occurrences of identical lines are counted from the file's start,
		// so a line met again gets the dedupe key it was stored under.
		st.occ = map[[32]byte]int64{}
		if start > 0 {
			if err := st.countPrefix(start); err != nil {
				return fileError(f.path, err)
			}
		}
	}
	if err := c.readBatches(ctx, st, start, rep); err != nil {
		return err
	}
	if st.logged < int(st.bad) {
		c.Log.Warn("more bad transcript lines skipped", "file", f.path, "count", st.bad-int64(st.logged))
	}
	return nil
}

// countCodexPrefix replays the codex counter over [0, end), so a pass
// that starts mid-file names its events as a read from the start would.
func (st *passState) countCodexPrefix(end int64) error {
	if end == 0 {
		return nil
	}
	lr := newLineReader(io.NewSectionReader(st.file, 0, end), 0)
	for {
		ln, err := lr.next()
		if err != nil {
			return err
		}
		if !ln.complete {
			return nil
		}
		if !ln.oversize && utf8.Valid(ln.data) {
			st.codex.next(ln.data)
		}
	}
}

// countPrefix counts line digests in [0, end) after a reread was cut short.
func (st *passState) countPrefix(end int64) error {
	lr := newLineReader(io.NewSectionReader(st.file, 0, end), 0)
	for {
		ln, err := lr.next()
		if err != nil {
			return err
		}
		if !ln.complete {
			return nil
		}
		if !ln.oversize {
			st.occ[sha256.Sum256(ln.data)]++
		}
	}
}

// readBatches reads from start and commits every BatchLines lines.
func (c *Copier) readBatches(ctx context.Context, st *passState, start int64, rep *Report) error {
	limit := c.BatchLines
	if limit <= 0 {
		limit = DefaultBatchLines
	}
	lr := newLineReader(st.file, start)
	for {
		var batch []mappedLine
		var held int
		end := start
		for len(batch) < limit && held < batchBytes {
			ln, err := lr.next()
			if err != nil {
				return fileError(st.f.path, err)
			}
			if !ln.complete {
				break // a half-written line waits for its newline
			}
			st.lineNo++
			batch = append(batch, c.mapLine(st, ln))
			held += len(ln.data)
			end = ln.end
		}
		if len(batch) == 0 {
			return nil
		}
		if err := c.commit(ctx, st, batch, end, rep); err != nil {
			return err
		}
		start = end
	}
}

// mappedLine is one line ready to store.
type mappedLine struct {
	start, end int64
	number     int64
	digest     [32]byte
	occ        int64 // -1: find by probing the store (plain appends)
	events     []store.Event
	skipped    []string
	redacted   map[string]int64
	cwd        string
	keys       []string // per event, "" for the line's own key
	bad        bool
	mayBeDone  bool // the line lies where an earlier read may have stored it
}

// mapLine classifies, maps and redacts one complete line. CPU work happens
// here, outside the write transaction.
func (c *Copier) mapLine(st *passState, ln line) mappedLine {
	ml := mappedLine{start: ln.start, end: ln.end, number: st.lineNo, occ: -1, mayBeDone: ln.start < st.rereadUntil}
	reason := ""
	switch {
	case ln.oversize:
		reason = "oversized_line"
	case len(bytes.TrimSpace(ln.data)) == 0:
		ml.skipped = []string{"blank_line"}
		return ml
	case !utf8.Valid(ln.data):
		reason = "invalid_utf8"
	}
	if reason == "" {
		ml.digest = sha256.Sum256(ln.data)
		if st.occ != nil {
			ml.occ = st.occ[ml.digest]
			st.occ[ml.digest]++
		}
		m, err := Map(st.f.kind, st.f.path, ln.data)
		if err != nil {
			reason = "malformed_json"
		} else {
			ml.events, ml.skipped, ml.cwd, ml.keys = m.Events, m.Skipped, m.Cwd, m.Keys
			if st.codex != nil {
				if p := st.codex.next(ln.data); p != "" {
					ml.keys = make([]string, len(ml.events))
					for i := range ml.keys {
						ml.keys[i] = p + "/" + strconv.Itoa(i)
					}
				}
			}
			if ml.cwd != "" {
				st.cwd = ml.cwd
			} else if st.f.kind == Codex || st.f.kind == Gemini {
				ml.cwd = st.cwd
			}
		}
	}
	if reason != "" {
		ml.bad = true
		ml.skipped = []string{reason}
		st.bad++
		if st.logged < maxLogged {
			st.logged++
			c.Log.Warn("skipped a bad transcript line", "file", st.f.path, "line", st.lineNo, "reason", reason, "bytes", ln.end-ln.start)
		}
		return ml
	}
	c.redactLine(&ml, ln.start)
	return ml
}

// redactLine scrubs a mapped line's events and sets their source offset.
func (c *Copier) redactLine(ml *mappedLine, offset int64) {
	ml.redacted = map[string]int64{}
	for i := range ml.events {
		ev := &ml.events[i]
		c.red.RedactEvent(ev, ml.redacted)
		if ev.ContentType == "json" && !json.Valid([]byte(ev.Content)) {
			ev.ContentType = "text"
		}
		off := offset
		ev.SourceOffset = &off
	}
}

// dedupeKey names event idx of a line: the file's identity, the line's
// digest and which occurrence of identical lines in the file it is.
func dedupeKey(identity string, digest [32]byte, occ int64, idx int) string {
	h := sha256.New()
	h.Write([]byte(identity))
	h.Write([]byte{0})
	h.Write(digest[:])
	h.Write([]byte(strconv.FormatInt(occ, 10) + "/" + strconv.Itoa(idx)))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// line is one line as read from a file.
type line struct {
	data       []byte // without the newline; nil when oversize
	start, end int64  // byte range including the newline
	complete   bool   // ended by a newline
	oversize   bool
}

// lineReader reads newline-terminated lines, never holding more than
// MaxLineBytes of one line in memory.
type lineReader struct {
	r   *bufio.Reader
	off int64
	// atEnd is set once a read met the end of the file inside a line: the
	// bytes of that line are consumed, so the reader stays at the end (a
	// later call would return only the rest of the line, as a line of its
	// own). The next pass reads the line whole from the stored offset.
	atEnd bool
}

func newLineReader(r io.Reader, offset int64) *lineReader {
	if s, ok := r.(io.Seeker); ok {
		if _, err := s.Seek(offset, io.SeekStart); err != nil {
			return &lineReader{r: bufio.NewReader(errReader{err}), off: offset}
		}
	}
	return &lineReader{r: bufio.NewReaderSize(r, 256<<10), off: offset}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// next returns the next line; complete is false at the end of the file,
// where a half-written line is left unread.
func (lr *lineReader) next() (line, error) {
	ln := line{start: lr.off}
	if lr.atEnd {
		return ln, nil
	}
	var n int64
	for {
		chunk, err := lr.r.ReadSlice('\n')
		n += int64(len(chunk))
		if !ln.oversize {
			if int64(len(ln.data))+int64(len(chunk)) > MaxLineBytes {
				ln.oversize, ln.data = true, nil
			} else {
				ln.data = append(ln.data, chunk...)
			}
		}
		switch {
		case err == nil:
			lr.off += n
			ln.end, ln.complete = lr.off, true
			if !ln.oversize {
				ln.data = ln.data[:len(ln.data)-1]
			}
			return ln, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			lr.atEnd = true
			return line{start: ln.start}, nil
		default:
			return line{}, fmt.Errorf("read at byte %d: %w", lr.off+n, err)
		}
	}
}
