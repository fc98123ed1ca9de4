package stats

import (
	"context"
	"encoding/json"
	"os"
	osexec "os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
)

// A run whose stage fails is still finished in the runs table, with its
// error, so stats never shows it in progress forever.
func TestFailedRunIsFinishedWithItsError(t *testing.T) {
	p := openTest(t)
	say(t, p, "s1", "I moved to Lisbon in March and work at Initech.")
	// The integrate stage cannot be built: the run fails after extract.
	p.Config.Embedding.Provider = "nonexistent"
	sum, err := p.Run(context.Background(), pipeline.RunOptions{Steps: pipeline.Steps{Extract: true, Integrate: true}, Extract: extract.Options{All: true}})
	if err == nil || !strings.Contains(err.Error(), "unknown provider") {
		t.Fatalf("run with a broken integrate stage: %v; want its error", err)
	}
	var finished, summary string
	if err := p.Store().QueryRow(`SELECT COALESCE(finished_at, ''), COALESCE(summary, '') FROM runs WHERE id = ?`, sum.RunID).Scan(&finished, &summary); err != nil {
		t.Fatal(err)
	}
	var got pipeline.Summary
	if finished == "" || json.Unmarshal([]byte(summary), &got) != nil || !strings.Contains(got.Error, "unknown provider") || got.Extract == nil || got.Elapsed == "" {
		t.Fatalf("failed run %d: finished_at %q, summary %s; want it finished with the error, the extract report and the time taken", sum.RunID, finished, summary)
	}
	st, err := Read(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Spend.LastRuns) != 1 || st.Spend.LastRuns[0].FinishedAt == "" || !strings.Contains(st.Spend.LastRuns[0].Error, "unknown provider") {
		t.Fatalf("stats runs = %+v; want the failed run finished with its error", st.Spend.LastRuns)
	}
}

// stats says who holds claimed facts and whether that process still runs.
func TestStatsNamesClaimers(t *testing.T) {
	p := openTest(t)
	say(t, p, "s1", "I moved to Lisbon in March and work at Initech.", "My sister Ana is a nurse in Porto.")
	if _, err := p.Run(context.Background(), pipeline.RunOptions{Steps: pipeline.Steps{Extract: true}, Extract: extract.Options{All: true}}); err != nil {
		t.Fatal(err)
	}
	dead := osexec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	at := store.FormatTime(time.Now().Add(-time.Minute))
	tokens := []string{
		at + "/a/" + host + "/" + strconv.Itoa(os.Getpid()) + "/" + selfStartTime(),
		at + "/b/" + host + "/" + strconv.Itoa(dead.Process.Pid) + "/1",
	}
	ids := []int64{}
	rows, err := p.Store().Query(`SELECT id FROM session_facts ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	if len(ids) < 2 {
		t.Fatalf("extract made %d session facts, want 2", len(ids))
	}
	for i, tok := range tokens {
		if _, err := p.Store().Exec(`UPDATE session_facts SET status = 'claimed', claim_token = ? WHERE id = ?`, tok, ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Read(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Claims) != 2 {
		t.Fatalf("stats claims = %+v; want 2", st.Claims)
	}
	live, gone := st.Claims[0], st.Claims[1]
	if live.PID != os.Getpid() || live.Gone || live.Since != at || !strings.Contains(live.By, "pid "+strconv.Itoa(os.Getpid())+" on "+host) {
		t.Errorf("live claim = %+v", live)
	}
	if gone.PID != dead.Process.Pid || !gone.Gone {
		t.Errorf("claim of an exited process = %+v; want gone", gone)
	}
}

func selfStartTime() string {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return ""
	}
	s := string(data)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[19]
}

// Spend rows with token counts near 2^62 (stored by an older recollect)
// never break stats: they read as unreported.
func TestStatsSurviveAbsurdTokenCounts(t *testing.T) {
	p := openTest(t)
	now := time.Now()
	for _, n := range []int64{1 << 62, 1 << 62, 40} {
		if _, err := p.Store().Exec(`INSERT INTO spend(stage, provider, input_tokens, output_tokens, elapsed_ms, ok, created_at) VALUES ('extract','http',?,?,1,1,?)`,
			n, n, store.FormatTime(now.Add(-time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Read(context.Background(), p)
	if err != nil {
		t.Fatalf("stats over absurd spend rows: %v", err)
	}
	if got := st.Spend.AllTime; got.Calls != 3 || got.InputTokens != 40 || got.OutputTokens != 40 || got.UnreportedCalls != 2 {
		t.Fatalf("all-time spend = %+v; want 3 calls, 40+40 tokens, 2 unreported", got)
	}
}
