package hookctx_test

import (
	"context"
	"strings"
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/hookctx"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
)

// TestBriefingsFollowEveryCommit: the daemon's kept session-start context
// is given again only while nothing has committed to the store. A fact
// consolidated by the daemon's own pipeline, one forgotten by another
// process's handle, and a session start after a compaction each get the
// context a fresh render gives — never the one kept before. On SQLite an
// unchanged store's context is given again; PostgreSQL has no data
// version, and every session start renders.
func TestBriefingsFollowEveryCommit(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		m := newMemory(t, engine)
		m.say(t, "s1", "We use Postgres 16 as the database for the Atlas project.")
		ctx := context.Background()
		r := m.p.Reader
		var b hookctx.Briefings
		in := hookctx.SessionInput{Source: hookctx.SourceStartup, SessionID: "s2", Budget: 1500}
		check := func(step, want, gone string) {
			t.Helper()
			keptIsFresh(t, ctx, &b, r, in, step, want, gone)
		}
		check("first", "Postgres 16", "")
		check("unchanged", "Postgres 16", "")
		wantReused := 1
		if engine != "sqlite" {
			wantReused = 0
		}
		if n := hookctx.Reused(&b); n != wantReused {
			t.Fatalf("an unchanged store's context was given again %d times, want %d", n, wantReused)
		}

		m.say(t, "s1", "The nightly backup of Atlas runs at three in the morning.")
		check("after a consolidation", "nightly backup", "")

		other, err := pipeline.Open(ctx, m.dir, pipeline.Options{Getenv: m.getenv})
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		backup, _ := m.factID(t, "nightly backup")
		if _, err := other.Forget(ctx, []int64{backup}, pipeline.ForgetOptions{Actor: "test", Reason: "test"}); err != nil {
			t.Fatal(err)
		}
		check("after a forget by another handle", "Postgres 16", "nightly backup")

		before := hookctx.Reused(&b)
		in = hookctx.SessionInput{Source: hookctx.SourceCompact, SessionID: "s1", Budget: 1500, Consolidation: hookctx.Consolidation{State: hookctx.StillRunning}}
		check("after a compaction", "still being consolidated", "nightly backup")
		check("after a compaction, again", "still being consolidated", "nightly backup")
		if n := hookctx.Reused(&b); n != before {
			t.Fatalf("a session start after a compaction was given a kept context (%d reused, was %d)", n, before)
		}
	})
}

// keptIsFresh fails t unless b's session-start context for in is what a
// fresh render gives now, holding want and (when gone is not empty) not
// gone; step names the moment in the failure.
func keptIsFresh(t *testing.T, ctx context.Context, b *hookctx.Briefings, r *graph.Reader, in hookctx.SessionInput, step, want, gone string) {
	t.Helper()
	got, err := b.SessionStart(ctx, r, in)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := hookctx.SessionStart(ctx, r, in)
	if err != nil {
		t.Fatal(err)
	}
	if got != fresh {
		t.Fatalf("%s: the kept context is not what a render gives now:\n%s\n---\n%s", step, got, fresh)
	}
	if !strings.Contains(got, want) || gone != "" && strings.Contains(got, gone) {
		t.Fatalf("%s: context lacks %q or carries %q:\n%s", step, want, gone, got)
	}
}

// TestBriefingsKeptAcrossCopies: on SQLite the kept session-start context
// is given again after a transcript line is copied by another process's
// handle (a commit that moves the data version and writes no fact), and
// rendered afresh once a conflict is raised or resolved (a write to no
// fact, which the knowledge version does not follow): each time it is
// what a fresh render gives.
func TestBriefingsKeptAcrossCopies(t *testing.T) {
	m := newMemory(t, "sqlite")
	m.say(t, "s1", "We use Postgres 16 as the database for the Atlas project.")
	m.say(t, "s1", "The nightly backup of Atlas runs at three in the morning.")
	ctx := context.Background()
	r := m.p.Reader
	other, err := pipeline.Open(ctx, m.dir, pipeline.Options{Getenv: m.getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := other.Store().ExecContext(ctx, query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	var b hookctx.Briefings
	in := hookctx.SessionInput{Source: hookctx.SourceStartup, SessionID: "s2", Budget: 1500}
	check := func(step string, reused bool, want, gone string) {
		t.Helper()
		before := hookctx.Reused(&b)
		keptIsFresh(t, ctx, &b, r, in, step, want, gone)
		if again := hookctx.Reused(&b) > before; again != reused {
			t.Fatalf("%s: the kept context was given again: %v, want %v", step, again, reused)
		}
	}
	check("first", false, "Postgres 16", "")
	check("unchanged", true, "Postgres 16", "")
	dv, _, err := r.Store().DataVersion()
	if err != nil {
		t.Fatal(err)
	}
	exec(`INSERT INTO sessions(id, source, created_at) VALUES ('s-live', 'claude-code', ?)`, store.Now())
	exec(`INSERT INTO session_events(session_id, source, role, event_type, content_type, content, recorded_at)
		VALUES ('s-live', 'claude-code', 'user', 'message', 'text', 'a line of a live session', ?)`, store.Now())
	if now, _, _ := r.Store().DataVersion(); now == dv {
		t.Fatal("the copy did not move the data version; the test cannot tell the keys apart")
	}
	check("after a transcript line copied", true, "Postgres 16", "")

	pg, _ := m.factID(t, "Postgres 16")
	backup, _ := m.factID(t, "nightly backup")
	exec(`INSERT INTO conflicts(fact_id, other_id, target_id, reason, created_at) VALUES (?, ?, ?, 'test', ?)`, pg, backup, pg, store.Now())
	check("after a conflict raised", false, "conflict", "")
	check("after a conflict raised, again", true, "conflict", "")
	exec(`UPDATE conflicts SET resolved_at = ?`, store.Now())
	check("after the conflict resolved", false, "Postgres 16", "recollect conflicts resolve")
}
