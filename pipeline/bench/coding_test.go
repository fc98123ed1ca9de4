package bench

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
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
}

// TestRunCoding runs the coding bench on one real transcript of the set:
// the store is built through the user's path, and every figure is
// computed in the run (BM25's beside recollect's), none fixed.
func TestRunCoding(t *testing.T) {
	set, err := ReadCodingSet(filepath.Join("..", "..", "fixtures", "coding", "questions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var one CodingSet
	for _, tr := range set.Transcripts {
		if strings.HasPrefix(tr.Name, "claude-code-log") {
			one.Transcripts = append(one.Transcripts, tr)
		}
	}
	if len(one.Transcripts) != 1 || len(one.Transcripts[0].Questions) < 10 {
		t.Fatalf("question set lacks the claude-code-log transcript's 10 questions: %+v", one)
	}
	rep, err := RunCoding(context.Background(), CodingOptions{Set: one, Transcripts: filepath.Join("..", "..", "fixtures", "transcripts"), Work: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Transcripts[0]
	if r.Events < 50 || r.Questions != 10 || rep.Total.Questions != 10 {
		t.Fatalf("report %+v", r)
	}
	if r.BM25 == 0 || r.Answered == 0 {
		t.Errorf("nothing answered: recollect %d, bm25 %d", r.Answered, r.BM25)
	}
	if r.Answered < r.BM25 {
		t.Errorf("recollect answered %d of %d, below plain BM25's %d over the same messages (missed %q)", r.Answered, r.Questions, r.BM25, r.Missed)
	}
	if r.AfterPrune < r.Answered {
		t.Errorf("prune lost answers: %d before, %d after", r.Answered, r.AfterPrune)
	}
	var b strings.Builder
	PrintCoding(&b, rep)
	if !strings.Contains(b.String(), "claude-code-log experiments") || !strings.Contains(b.String(), "total") {
		t.Errorf("table:\n%s", b.String())
	}
}
