package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/recollect/recollect/store"
)

// Bounds on what one model answer may add, so a runaway or hostile host
// cannot flood the store (one fact naming 1,000 entities made 499,500
// co-mention edges; 10,000 facts in one answer and an 8 MB fact were
// stored). What is cut is counted in skipped_records (stats' "skipped")
// under the stage that cut it.
const (
	// MaxFactsPerAnswer is the most facts one extract answer adds; the
	// rest of the answer is dropped.
	MaxFactsPerAnswer = 100
	// MaxFactBytes is the longest fact kept, the same cap as a captured
	// fact (capture_fact): one or two sentences. A longer one is dropped
	// whole, never cut into a sentence nobody said.
	MaxFactBytes = 2000
	// MaxEntitiesPerFact is the most entities one fact is linked to; the
	// first named are kept.
	MaxEntitiesPerFact = 16
	// MaxEdgesPerFact is the most entity edges (co-mentions and explicit
	// relations) one fact adds: every pair of MaxEntitiesPerFact entities.
	MaxEdgesPerFact = MaxEntitiesPerFact * (MaxEntitiesPerFact - 1) / 2
)

// Kinds of cuts, as counted in skipped_records.
const (
	CutFactsOverAnswerCap = "facts_over_answer_cap"
	CutFactsOverBytes     = "facts_over_bytes_cap"
	CutEntitiesOverCap    = "entities_over_fact_cap"
	CutEdgesOverCap       = "edges_over_fact_cap"
)

// CountCuts adds what a stage cut to skipped_records under source stage.
func CountCuts(ctx context.Context, ex store.Execer, stage string, cut map[string]int64) error {
	for _, k := range slices.Sorted(maps.Keys(cut)) {
		if cut[k] == 0 {
			continue
		}
		if _, err := ex.ExecContext(ctx, `INSERT INTO skipped_records(source, record_type, count) VALUES (?,?,?)
			ON CONFLICT(source, record_type) DO UPDATE SET count = skipped_records.count + excluded.count`, stage, k, cut[k]); err != nil {
			return fmt.Errorf("count %s cut by %s: %w", k, stage, err)
		}
	}
	return nil
}

// MaxAnswerBytes bounds the bytes read from a model or embedding host for
// one answer (a chat completion, an embedding batch, the cli provider's
// output). A host that sends more is misbehaving: the read stops there,
// and the call fails with ErrAnswerTooLarge, so its batch is held and
// logged, never read whole into memory.
const MaxAnswerBytes = 32 << 20

// ErrAnswerTooLarge is the error of a call whose answer passed
// MaxAnswerBytes.
var ErrAnswerTooLarge = errors.New("the answer is larger than the 32 MiB a model or embedding host may send for one call; the batch is held, not read whole — check the host")

// BoundedClient is an HTTP client whose response bodies fail with
// ErrAnswerTooLarge once past MaxAnswerBytes.
func BoundedClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: boundedTransport{next: http.DefaultTransport}}
}

type boundedTransport struct{ next http.RoundTripper }

func (t boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	resp.Body = &boundedBody{r: resp.Body, left: MaxAnswerBytes, host: req.URL.Host}
	return resp, nil
}

// boundedBody reads at most left bytes, then fails.
type boundedBody struct {
	r    io.ReadCloser
	left int64
	host string
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("read answer from %s: %w", b.host, ErrAnswerTooLarge)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.r.Close() }

// boundedBuffer is a buffer that takes at most MaxAnswerBytes and then
// refuses, for a provider that writes its answer to a pipe.
type boundedBuffer struct {
	bytes.Buffer
	over bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if int64(b.Len()+len(p)) > MaxAnswerBytes {
		b.over = true
		return 0, ErrAnswerTooLarge
	}
	return b.Buffer.Write(p)
}
