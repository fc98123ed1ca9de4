package hookctx_test

import (
	"context"
	"strings"
	"testing"

	"github.com/recollect/recollect/graph/hookctx"
	"github.com/recollect/recollect/pipeline"
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
