package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// codingQuestions reads the labelled questions of one transcript of the
// coding question set (fixtures/coding/questions.json).
func codingQuestions(tb testing.TB, name string) []codingQuestion {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("..", "fixtures", "coding", "questions.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var set struct {
		Transcripts []struct {
			Name      string           `json:"name"`
			Questions []codingQuestion `json:"questions"`
		} `json:"transcripts"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		tb.Fatal(err)
	}
	for _, tr := range set.Transcripts {
		if tr.Name == name {
			return tr.Questions
		}
	}
	tb.Fatalf("no transcript %q in the coding question set", name)
	return nil
}

type codingQuestion struct {
	Q      string   `json:"q"`
	Answer []string `json:"answer"`
}

// searchState is what a search answers a question with: whether one
// result, fact or episode event, holds every answer word.
type searchState struct {
	Answered bool
}

// factRows lists every fact's id, status and text.
func factRows(tb testing.TB, p *Pipeline) []string {
	tb.Helper()
	rows, err := p.db.Query(`SELECT id, status, content FROM facts ORDER BY id`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id int64
		var status, content string
		if err := rows.Scan(&id, &status, &content); err != nil {
			tb.Fatal(err)
		}
		out = append(out, fmt.Sprint(id, status, content))
	}
	return out
}

func searchStates(tb testing.TB, p *Pipeline, qs []codingQuestion) []searchState {
	tb.Helper()
	var out []searchState
	for _, q := range qs {
		ans, err := p.Reader.Search(context.Background(), graph.Query{Text: q.Q, Limit: 10})
		if err != nil {
			tb.Fatalf("search %q: %v", q.Q, err)
		}
		var st searchState
		var texts []string
		for _, h := range ans.Results {
			texts = append(texts, h.Content)
		}
		for _, ep := range ans.Episodes {
			for _, ev := range ep.Events {
				texts = append(texts, ev.Content)
			}
		}
		for _, t := range texts {
			if holdsEvery(t, q.Answer) {
				st.Answered = true
				break
			}
		}
		out = append(out, st)
	}
	return out
}

func holdsEvery(text string, words []string) bool {
	lt := strings.ToLower(text)
	for _, w := range words {
		if !strings.Contains(lt, strings.ToLower(w)) {
			return false
		}
	}
	return true
}

// codexHome lays Codex rollouts out as ~/.codex holds them.
func codexHome(tb testing.TB, rollouts ...string) string {
	tb.Helper()
	home := tb.TempDir()
	for _, src := range rollouts {
		data, err := os.ReadFile(filepath.Join("..", "fixtures", "transcripts", src))
		if err != nil {
			tb.Fatal(err)
		}
		dst := filepath.Join(home, "sessions", "2025", "09", "16", filepath.Base(src))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return home
}

// TestPruneKeepsEveryAnswerOfRealSessions builds stores from real coding
// sessions as a user's copy store holds them, asks the labelled questions
// of fixtures/coding/questions.json, prunes with --apply --vacuum, and asks
// again: prune takes the tool output a session is mostly made of, leaves
// the facts as they were, and every question answered before is answered
// after.
func TestPruneKeepsEveryAnswerOfRealSessions(t *testing.T) {
	cases := []struct {
		name string
		src  config.Source
	}{
		{"spotter", config.Source{Kind: sources.ClaudeCode, Home: spotterHome(t)}},
		{"cpolar-connect", config.Source{Kind: sources.Codex, Home: codexHome(t,
			"codex/cpolar-connect/sessions/2025/09/16/rollout-2025-09-16T12-47-48-9cd28a74-da7e-4458-a91a-fffec2be9d7a.jsonl",
			"codex/cpolar-connect/sessions/2025/09/16/rollout-2025-09-16T14-12-31-613a9a68-8816-40b2-a2d4-041ade599da6.jsonl")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			cfg := config.Default()
			cfg.Mode = "copy"
			cfg.Sources = []config.Source{tc.src}
			if err := config.Write(dir, cfg); err != nil {
				t.Fatal(err)
			}
			p, err := Open(ctx, dir, Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if _, err := p.Copy(ctx); err != nil {
				t.Fatal(err)
			}
			consolidate(t, p)
			qs := codingQuestions(t, tc.name)
			const conversation = `SELECT count(*) FROM session_events WHERE (event_type = 'message' AND role IN ('user', 'assistant') AND content_type = 'text')
				OR (event_type = 'artifact' AND metadata LIKE '%"compact_summary":true%')`
			talk := storetest.Count(t, p.db, conversation)
			facts := factRows(t, p)
			before := searchStates(t, p, qs)

			// No working-memory window: what keeps the answers must be the
			// rule of what prune takes, not a window of recent events.
			p.Config.Extraction.WorkingMemorySize = 0
			rep, err := p.Prune(ctx, PruneOptions{Apply: true, Vacuum: true})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Events == 0 {
				t.Fatalf("prune took nothing from a session of tool calls and output: %+v", rep)
			}
			if n := storetest.Count(t, p.db, conversation); n != talk {
				t.Errorf("the conversation's text went from %d events to %d", talk, n)
			}
			after := searchStates(t, p, qs)
			for i, q := range qs {
				// Tool output that held a place among the results is gone, so
				// a message or fact may take it: a question can gain its
				// answer, never lose it.
				if before[i].Answered && !after[i].Answered {
					t.Errorf("%q: answered before prune --apply --vacuum, not after", q.Q)
				}
			}
			if got := factRows(t, p); !slices.Equal(got, facts) {
				t.Errorf("prune changed the facts: %d before, %d after", len(facts), len(got))
			}
			provenanceResolves(t, p)
		})
	}
}
