package integrate_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// conflictStore makes the conflict of TestTwoNewFactsClaimOneOld: Neovim
// replaced VS Code first, Helix claims to replace it too.
func conflictStore(t *testing.T, db *store.DB) (vscode, neovim, helix, conflict int64) {
	t.Helper()
	say(t, db, statement{text: "I use VS Code", day: 1, domain: "tools", entities: userSubject})
	run(t, newIntegrator(db, day(1)))
	vscode = factNamed(t, db, "I use VS Code").ID
	say(t, db, statement{text: "I switched to Neovim", day: 3, domain: "tools", entities: userSubject})
	say(t, db, statement{text: "I switched to Helix", day: 4, domain: "tools", entities: userSubject})
	claim := fmt.Sprintf(`{"supersedes":[{"id":"%d","reason":"new editor"}]}`, vscode)
	in, _ := modelIntegrator(t, db, []string{"supersede"}, claim, claim)
	if rep := run(t, in); rep.Conflicts != 1 {
		t.Fatalf("report = %+v, want 1 conflict", rep)
	}
	neovim, helix = factNamed(t, db, "I switched to Neovim").ID, factNamed(t, db, "I switched to Helix").ID
	list, err := integrate.ListConflicts(t.Context(), db, false)
	if err != nil || len(list) != 1 {
		t.Fatalf("conflicts %+v, %v", list, err)
	}
	c := list[0]
	if c.FactID != helix || c.WinnerID != neovim || c.TargetID != vscode || c.Fact != "I switched to Helix" ||
		c.Winner != "I switched to Neovim" || c.Target != "I use VS Code" || c.FactStatus != "active" || c.WinnerStatus != "active" {
		t.Fatalf("conflict view %+v", c)
	}
	return vscode, neovim, helix, c.ID
}

func TestResolveConflict(t *testing.T) {
	ctx := t.Context()
	storetest.Run(t, "keep the newcomer", func(t *testing.T, db *store.DB) {
		_, neovim, helix, id := conflictStore(t, db)
		res, err := integrate.ResolveConflict(ctx, db, id, integrate.ResolveOptions{Keep: helix, Note: "Helix since March"})
		if err != nil || res != (integrate.Resolution{Conflict: id, Kept: helix, Superseded: neovim}) {
			t.Fatalf("resolve: %+v, %v", res, err)
		}
		if f := factNamed(t, db, "I switched to Neovim"); f.Status != "superseded" || f.SupersededBy != helix {
			t.Errorf("Neovim is %s by %d, want superseded by Helix %d", f.Status, f.SupersededBy, helix)
		}
		if f := factNamed(t, db, "I use VS Code"); f.SupersededBy != neovim {
			t.Errorf("VS Code's successor changed to %d; it stays Neovim %d (which now leads to Helix)", f.SupersededBy, neovim)
		}
		if open, _ := integrate.ListConflicts(ctx, db, false); len(open) != 0 {
			t.Errorf("still open: %+v", open)
		}
		if all, _ := integrate.ListConflicts(ctx, db, true); len(all) != 1 || all[0].ResolvedAt == "" || all[0].WinnerStatus != "superseded" {
			t.Errorf("all conflicts %+v", all)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM mutation_log WHERE op = 'resolve' AND target = ? AND reason = 'Helix since March'`, fmt.Sprintf("conflict:%d", id)); n != 1 {
			t.Errorf("%d resolve entries in the mutation log, want 1", n)
		}
		_, err = integrate.ResolveConflict(ctx, db, id, integrate.ResolveOptions{Keep: helix})
		if !errors.Is(err, integrate.ErrConflictInput) {
			t.Errorf("resolving twice: %v", err)
		}
		if f := factNamed(t, db, "I switched to Helix"); f.Status != "active" {
			t.Errorf("the kept fact is %s", f.Status)
		}
	})
	storetest.Run(t, "keep the first replacement", func(t *testing.T, db *store.DB) {
		_, neovim, _, id := conflictStore(t, db)
		if _, err := integrate.ResolveConflict(ctx, db, id, integrate.ResolveOptions{Keep: neovim}); err != nil {
			t.Fatal(err)
		}
		if f := factNamed(t, db, "I switched to Helix"); f.Status != "superseded" || f.SupersededBy != neovim {
			t.Errorf("Helix is %s by %d, want superseded by Neovim %d", f.Status, f.SupersededBy, neovim)
		}
	})
	storetest.Run(t, "both stand", func(t *testing.T, db *store.DB) {
		_, _, _, id := conflictStore(t, db)
		res, err := integrate.ResolveConflict(ctx, db, id, integrate.ResolveOptions{Both: true})
		if err != nil || !res.Both || res.Superseded != 0 {
			t.Fatalf("resolve both: %+v, %v", res, err)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM facts WHERE status = 'active'`); n != 2 {
			t.Errorf("%d active facts, want Neovim and Helix", n)
		}
	})
	storetest.Run(t, "refusals change nothing", func(t *testing.T, db *store.DB) {
		vscode, neovim, _, id := conflictStore(t, db)
		for _, c := range []struct {
			name string
			id   int64
			opts integrate.ResolveOptions
			kind error
			want string
		}{
			{"unknown conflict", id + 100, integrate.ResolveOptions{Keep: neovim}, integrate.ErrNoConflict, fmt.Sprintf("there is no conflict %d; recollect conflicts lists them", id+100)},
			{"fact not in it", id, integrate.ResolveOptions{Keep: vscode}, integrate.ErrConflictInput, fmt.Sprintf("fact %d is not in conflict %d", vscode, id)},
		} {
			_, err := integrate.ResolveConflict(ctx, db, c.id, c.opts)
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want %q", c.name, err, c.want)
			}
		}
		if _, err := db.ExecContext(context.Background(), `UPDATE facts SET status = 'rejected' WHERE id = ?`, neovim); err != nil {
			t.Fatal(err)
		}
		_, err := integrate.ResolveConflict(ctx, db, id, integrate.ResolveOptions{Keep: neovim})
		if !errors.Is(err, integrate.ErrConflictInput) || !strings.Contains(err.Error(), fmt.Sprintf("fact %d is rejected now", neovim)) {
			t.Errorf("a fact no longer active: %v", err)
		}
		if open, _ := integrate.ListConflicts(ctx, db, false); len(open) != 1 {
			t.Errorf("a refused resolve closed the conflict: %+v", open)
		}
	})
}
