package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/fixtures/testbin"
)

func TestBM25RanksTheMessageThatHoldsTheQuery(t *testing.T) {
	b := newBM25([]string{"the cache is warm", "we deploy to fly.io on fridays", "the deploy failed twice", "lunch"})
	got := b.top("where do we deploy", 2)
	if len(got) != 2 || got[0] != "we deploy to fly.io on fridays" {
		t.Fatalf("top = %q", got)
	}
	if len(b.top("nothing here matches", 5)) != 0 {
		t.Fatal("a query sharing no word ranked documents")
	}
	zh := newBM25([]string{"我们用Go写了一个命令行工具", "配置文件放在用户目录下", "测试都通过了"})
	if got := zh.top("配置文件在哪里？", 1); len(got) != 1 || got[0] != "配置文件放在用户目录下" {
		t.Fatalf("chinese top = %q", got)
	}
}

// TestReadCodingSet checks the project's question set and that a question
// carrying its own answer word is refused.
func TestReadCodingSet(t *testing.T) {
	set, err := ReadCodingSet(filepath.Join("..", "..", "..", "fixtures", "coding", "questions.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range set.Transcripts {
		if len(tr.Questions) < 10 {
			t.Errorf("%s: %d questions, want at least 10", tr.Name, len(tr.Questions))
		}
		for _, p := range tr.Paths {
			if _, err := os.Stat(filepath.Join("..", "..", "..", "fixtures", "transcripts", p)); err != nil {
				t.Errorf("%s: %v", tr.Name, err)
			}
		}
	}
	bad := filepath.Join(t.TempDir(), "q.json")
	if err := os.WriteFile(bad, []byte(`{"transcripts":[{"name":"x","kind":"codex","paths":["a"],"questions":[{"q":"Where is the log file?","answer":["log"]}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCodingSet(bad); err == nil || !strings.Contains(err.Error(), `answer word "log" is in the question`) {
		t.Errorf("a question holding its answer word: err = %v", err)
	}
}

// TestRunCoding runs the coding bench on one small real transcript through
// the built binary, as a user runs it: the report has its shape, and each
// figure is computed in the run — a question whose answer words the
// transcript never holds is answered by neither recollect nor BM25, and
// the transcript's own questions by both.
func TestRunCoding(t *testing.T) {
	set, err := ReadCodingSet(filepath.Join("..", "..", "..", "fixtures", "coding", "questions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var one CodingSet
	for _, tr := range set.Transcripts {
		if strings.HasPrefix(tr.Name, "claude-code-log") {
			tr.Questions = append(tr.Questions, CodingQuestion{Q: "Which database did the teammates pick?", Answer: []string{"CockroachDB"}})
			one.Transcripts = append(one.Transcripts, tr)
		}
	}
	if len(one.Transcripts) != 1 {
		t.Fatalf("question set lacks the claude-code-log transcript: %+v", set)
	}
	n := len(one.Transcripts[0].Questions)
	rep, err := RunCoding(context.Background(), CodingOptions{Binary: testbin.Binary(t), Set: one,
		Transcripts: filepath.Join("..", "..", "..", "fixtures", "transcripts"), Work: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Transcripts[0]
	if r.Events < 50 || r.Sessions != 1 || r.Questions != n || rep.Total.Questions != n || len(r.Results) != n {
		t.Fatalf("report %+v", r)
	}
	if r.BM25 == 0 || r.Answered == 0 {
		t.Errorf("nothing answered: recollect %d, bm25 %d", r.Answered, r.BM25)
	}
	if last := r.Results[n-1]; last.Recollect || last.BM25 || last.AfterPrune || last.PromptAnswered {
		t.Errorf("a question whose answer the transcript never holds was answered: %+v", last)
	}
	if r.Answered > n-1 || r.BM25 > n-1 {
		t.Errorf("answered more questions than can be: recollect %d, bm25 %d of %d", r.Answered, r.BM25, n)
	}
	if r.AfterPrune < r.Answered {
		t.Errorf("prune lost answers: %d before, %d after", r.Answered, r.AfterPrune)
	}
	if r.PromptAnswered > r.PromptAdded || r.PromptAdded == 0 {
		t.Errorf("prompt hook: added %d, answered %d", r.PromptAdded, r.PromptAnswered)
	}
	facts := 0
	for _, c := range r.Facts {
		facts += c
	}
	if facts == 0 {
		t.Errorf("no facts counted: %v", r.Facts)
	}
	if r.SessionStartText != "" && len(r.SessionStart) == 0 {
		t.Errorf("session-start context without sections: %q", r.SessionStartText)
	}
	if len(rep.Steps) == 0 {
		t.Error("the report does not say how the stores were built")
	}

	var b strings.Builder
	PrintCoding(&b, rep)
	for _, want := range []string{"claude-code-log experiments", "total", "recollect", "bm25", "after prune",
		"facts by kind:", "session-start context", "missed by recollect (bm25 missed it too): Which database did the teammates pick?"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"bm25_answered"`, `"answered_after_prune"`, `"facts_by_kind"`, `"questions_detail"`, `"prompt_hook_answered"`} {
		if !strings.Contains(string(js), key) {
			t.Errorf("JSON report lacks %s", key)
		}
	}
}
