package extract

import (
	"context"
	"log/slog"
	"testing"

	"github.com/recollect/recollect/extract/model/modeltest"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// httpIntelligence routes every stage to the http provider at url.
func httpIntelligence(url, name string) config.Intelligence {
	cfg := config.Default().Intelligence
	cfg.Provider = "http"
	cfg.HTTP.BaseURL = url
	cfg.HTTP.Model = name
	return cfg
}

// newRun begins one run over a new model router.
func newRun(t testing.TB, cfg config.Intelligence, db *store.DB, env map[string]string) *model.Run {
	t.Helper()
	run, err := model.NewRouter(cfg, db, func(k string) string { return env[k] }, slog.New(slog.DiscardHandler)).BeginRun(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return run
}

type spendRow struct {
	Stage, Provider string
	Model           *string
	In, Out         *int64
	OK              bool
}

func spendRows(t testing.TB, db *store.DB) []spendRow {
	t.Helper()
	return storetest.Rows[spendRow](t, db, `SELECT stage, provider, model, input_tokens, output_tokens, ok FROM spend ORDER BY id`)
}

// onlyCall returns the system and user messages of the one chat completion
// the host received, failing unless it received exactly one.
func onlyCall(t testing.TB, h *modeltest.Host) (system, prompt string) {
	t.Helper()
	chats := h.Requests("/v1/chat/completions")
	if len(chats) != 1 {
		t.Fatalf("%d model calls, want 1", len(chats))
	}
	var sent struct {
		Messages []struct{ Role, Content string }
	}
	if err := chats[0].Decode(&sent); err != nil {
		t.Fatal(err)
	}
	return sent.Messages[0].Content, sent.Messages[len(sent.Messages)-1].Content
}
