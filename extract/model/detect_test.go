package model

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/extract/model/modeltest"
	"github.com/recollect/recollect/store/config"
)

// closedURL is a loopback address nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

func TestDetectDefault(t *testing.T) {
	fake, _ := filepath.Abs("testdata/fakeclaude")
	one := modeltest.NewHost(t, "llama3.2:3b", "nomic-embed-text:latest")
	two := modeltest.NewHost(t, "llama3.2:3b", "qwen2.5:7b")
	embedOnly := modeltest.NewHost(t, "nomic-embed-text:latest")
	cases := []struct {
		name, path, url string
		want            Detection
	}{
		{"claude on PATH", fake, closedURL(t), Detection{Provider: "cli", Why: "found claude at " + fake + "/claude, so facts are extracted by Claude Code (model haiku)"}},
		{"one chat model", "", one.OpenAIURL(), Detection{Provider: "http", Model: "llama3.2:3b", Why: "no claude on PATH; the OpenAI-compatible host at " + one.OpenAIURL() + " offers one chat model, llama3.2:3b, pinned as intelligence.http.model"}},
		{"several chat models", "", two.OpenAIURL(), Detection{Provider: "heuristic", Why: "no claude on PATH and the host at " + two.OpenAIURL() + " offers 2 chat models (llama3.2:3b, qwen2.5:7b); recollect does not guess, so facts are extracted by the built-in heuristic until you set intelligence.provider to http and intelligence.http.model to one of them"}},
		{"embedding models only", "", embedOnly.OpenAIURL(), Detection{Provider: "heuristic", Why: "no claude on PATH and the host at " + embedOnly.OpenAIURL() + " offers no chat model, so facts are extracted by the built-in heuristic; pull a chat model and set intelligence.provider to http"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default().Intelligence
			cfg.HTTP.BaseURL = tc.url
			got := DetectDefault(context.Background(), cfg, LookPathIn(tc.path), nil)
			if got != tc.want {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
	t.Run("nothing listening", func(t *testing.T) {
		cfg := config.Default().Intelligence
		cfg.HTTP.BaseURL = closedURL(t)
		got := DetectDefault(context.Background(), cfg, LookPathIn(""), nil)
		if got.Provider != "heuristic" || !strings.HasPrefix(got.Why, "no claude on PATH and no OpenAI-compatible host answered at "+cfg.HTTP.BaseURL) {
			t.Fatalf("got %+v", got)
		}
	})
}
