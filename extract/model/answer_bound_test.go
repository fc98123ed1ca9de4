package model

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/recollect/recollect/store/config"
)

// TestHugeAnswerIsHeldNotReadWhole: a host that streams a 100 MB answer to
// a chat completion is read only up to MaxAnswerBytes; the call fails with
// ErrAnswerTooLarge (so its batch is held), and the host is cut off long
// before it has sent the whole answer.
func TestHugeAnswerIsHeldNotReadWhole(t *testing.T) {
	const total = 100 << 20
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model"}]}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		head := `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"`
		if _, err := w.Write([]byte(head)); err != nil {
			return
		}
		chunk := []byte(strings.Repeat("a", 64<<10))
		for sent.Load() < total {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
		w.Write([]byte(`"},"finish_reason":"stop"}]}`))
	}))
	t.Cleanup(srv.Close)
	cfg := config.Default().Intelligence
	cfg.Provider = "http"
	cfg.HTTP.BaseURL = srv.URL + "/v1"
	cfg.HTTP.Model = "m"
	r := newRun(t, cfg, nil, nil)
	_, err := r.Call(context.Background(), testRequest("extract"))
	if !errors.Is(err, ErrAnswerTooLarge) {
		t.Fatalf("a 100 MB answer: err = %v, want ErrAnswerTooLarge", err)
	}
	if !strings.Contains(err.Error(), "the batch is held") {
		t.Errorf("the error does not say what became of the batch: %v", err)
	}
	if n := sent.Load(); n >= total {
		t.Errorf("the host sent the whole %d-byte answer; the read did not stop at %d", n, MaxAnswerBytes)
	}
}

// TestBoundedBufferRefusesPastTheBound: the cli provider's output is held
// to the same bound.
func TestBoundedBufferRefusesPastTheBound(t *testing.T) {
	var b boundedBuffer
	if _, err := b.Write(make([]byte, MaxAnswerBytes)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Write([]byte("x")); !errors.Is(err, ErrAnswerTooLarge) || !b.over {
		t.Fatalf("write past the bound: %v", err)
	}
}
