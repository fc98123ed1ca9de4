package integrate_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// modelIntegrator routes the named stages to a model host scripted with
// answers, in call order; the other stages stay on the heuristic.
func modelIntegrator(t *testing.T, db *store.DB, stages []string, answers ...string) (*integrate.Integrator, *script) {
	t.Helper()
	in := newIntegrator(db, day(10))
	s := newScript(t, in, stages, answers...)
	return in, s
}

// ents gives a statement the extract's entities, so the entities stage is
// not asked: the user is the subject.
const userSubject = `[{"name":"the user","type":"person","role":"subject","is_subject":true}]`

func TestModelSupersedesAcrossBatchAndKeepsHistory(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "I live in Paris", day: 1, domain: "home", entities: userSubject})
		in, _ := modelIntegrator(t, db, []string{"supersede"})
		run(t, in)
		say(t, db, statement{text: "These days my flat is in Berlin", day: 5, domain: "home", entities: userSubject})
		paris := factNamed(t, db, "I live in Paris")
		in, s := modelIntegrator(t, db, []string{"supersede"}, fmt.Sprintf(`{"supersedes":[{"id":"%d","reason":"the user now lives in Berlin"}]}`, paris.ID))
		rep := run(t, in)
		if rep.Superseded != 1 {
			t.Fatalf("report = %+v", rep)
		}
		berlin := factNamed(t, db, "These days my flat is in Berlin")
		paris = factNamed(t, db, "I live in Paris")
		if paris.Status != "superseded" || paris.SupersededBy != berlin.ID || berlin.Status != "active" {
			t.Errorf("paris = %+v, berlin = %+v", paris, berlin)
		}
		if p := s.prompts("supersede"); len(p) != 1 || !strings.Contains(p[0], fmt.Sprintf("id %d (said %s): I live in Paris", paris.ID, store.FormatTime(day(1)))) {
			t.Errorf("supersede prompt = %q", p)
		}
		var actor, reason string
		if err := db.QueryRowContext(context.Background(), `SELECT actor, reason FROM mutation_log WHERE op = 'supersede'`).Scan(&actor, &reason); err != nil {
			t.Fatal(err)
		}
		if actor != "integrate/supersede:ollama/llama3.2:3b" || reason != "the user now lives in Berlin" {
			t.Errorf("logged %q by %q", reason, actor)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM facts`); n != 2 {
			t.Errorf("%d facts, want 2", n)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM facts WHERE status = 'active'`); n != 1 {
			t.Errorf("%d active, want 1", n)
		}
	})
}

func TestModelJunkLosesNothing(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "I live in Paris with my partner", day: 1, domain: "home", entities: userSubject})
		run(t, newIntegrator(db, day(1)))
		say(t, db, statement{text: "I live in Paris with my partner and cat", day: 2, domain: "home", entities: userSubject})
		say(t, db, statement{text: "I moved to Berlin", day: 5, domain: "home", entities: userSubject})
		junk := []string{
			`{"action":"merge","id":"4242","reason":"made up"}`, // reconcile: an id never offered
			`I think fact 1 is outdated`,                        // supersede for the cat fact: not JSON,
			`I think fact 1 is outdated`,                        // twice, as the router retries once
			`{"supersedes":[{"id":"77","reason":"?"}]}`,         // supersede for Berlin: an unknown id
		}
		in, s := modelIntegrator(t, db, []string{"reconcile", "supersede"}, junk...)
		rep := run(t, in)
		if rep.Integrated != 2 || rep.Superseded != 0 || rep.Merged != 0 {
			t.Fatalf("report = %+v, want both facts added and nothing superseded", rep)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM facts WHERE status = 'active'`); n != 3 {
			t.Errorf("%d active facts, want 3", n)
		}
		if s.pending() != 0 {
			t.Errorf("%d scripted answers unused", s.pending())
		}
		if rep.StageFailures["reconcile"] < 1 || rep.StageFailures["supersede"] < 2 {
			t.Errorf("stage failures = %v", rep.StageFailures)
		}
		for _, stage := range []string{"reconcile", "supersede"} {
			var n int
			var last string
			if err := db.QueryRowContext(context.Background(), `SELECT consecutive_failures, last_error FROM stage_health WHERE stage = ?`, stage).Scan(&n, &last); err != nil || n < 1 {
				t.Errorf("stage_health %s: %d failures (%q), %v", stage, n, last, err)
			}
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM session_facts WHERE status IN ('pending','claimed')`); n != 0 {
			t.Errorf("%d facts left unintegrated", n)
		}
	})
}

func TestModelReconcileMergeAndNoop(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "I work at Acme on the billing service", day: 1, domain: "work", entities: userSubject})
		run(t, newIntegrator(db, day(1)))
		say(t, db, statement{session: "s2", text: "I work at Acme on their billing service", day: 2, domain: "work", entities: userSubject})
		say(t, db, statement{session: "s3", text: "At Acme I work on the billing service", day: 3, domain: "work", entities: userSubject})
		acme := factNamed(t, db, "I work at Acme on the billing service").ID
		in, _ := modelIntegrator(t, db, []string{"reconcile"},
			fmt.Sprintf(`{"action":"merge","id":"%d","reason":"same job"}`, acme),
			fmt.Sprintf(`{"action":"noop","id":"%d","reason":"already known"}`, acme))
		rep := run(t, in)
		if rep.Merged != 1 || rep.Noop != 1 || rep.Integrated != 0 {
			t.Fatalf("report = %+v", rep)
		}
		if n := storetest.Count(t, db, `SELECT count(DISTINCT session_id) FROM fact_provenance WHERE fact_id = ?`, acme); n != 2 {
			t.Errorf("fact cites %d sessions, want 2 (the merge, not the noop)", n)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM session_facts WHERE fact_id = ? AND status = 'merged'`, acme); n != 2 {
			t.Errorf("%d session facts point at the fact, want 2", n)
		}
	})
}

func TestTwoNewFactsClaimOneOld(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "I use VS Code", day: 1, domain: "tools", entities: userSubject})
		run(t, newIntegrator(db, day(1)))
		vscode := factNamed(t, db, "I use VS Code").ID
		say(t, db, statement{text: "I switched to Neovim", day: 3, domain: "tools", entities: userSubject})
		say(t, db, statement{text: "I switched to Helix", day: 4, domain: "tools", entities: userSubject})
		claim := fmt.Sprintf(`{"supersedes":[{"id":"%d","reason":"new editor"}]}`, vscode)
		in, s := modelIntegrator(t, db, []string{"supersede"}, claim, claim)
		rep := run(t, in)
		if rep.Superseded != 1 || rep.Conflicts != 1 {
			t.Fatalf("report = %+v, want 1 superseded and 1 conflict", rep)
		}
		neovim, helix := factNamed(t, db, "I switched to Neovim"), factNamed(t, db, "I switched to Helix")
		if f := factNamed(t, db, "I use VS Code"); f.SupersededBy != neovim.ID {
			t.Errorf("VS Code superseded by %d, want the first claim (Neovim %d)", f.SupersededBy, neovim.ID)
		}
		if helix.Status != "active" {
			t.Errorf("the losing claim is %s, want active", helix.Status)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM conflicts WHERE fact_id = ? AND other_id = ? AND target_id = ?`, helix.ID, neovim.ID, vscode); n != 1 {
			t.Errorf("conflict rows = %d", n)
		}
		if p := s.prompts("supersede"); len(p) != 2 || !strings.Contains(p[1], "[already replaced in this run]") {
			t.Errorf("second prompt does not mark the replaced fact: %q", p)
		}
		ex, err := integrate.Why(t.Context(), db, helix.ID)
		if err != nil || len(ex.Conflicts) != 1 || ex.Conflicts[0].WinnerID != neovim.ID || ex.Conflicts[0].TargetID != vscode {
			t.Errorf("why helix: conflicts %+v, %v", ex.Conflicts, err)
		}
		sum, _, err := integrate.LatestSummary(t.Context(), db)
		if err != nil || len(sum.OpenThreads) == 0 || !strings.Contains(sum.OpenThreads[0], `"I switched to Helix" and "I switched to Neovim" both replace "I use VS Code"`) {
			t.Errorf("open threads = %q (%v)", sum.OpenThreads, err)
		}
	})
}

func TestModelClassifyAndEntities(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "I flew to Lisbon for the conference", day: 1, domain: "travel"})
		run(t, newIntegrator(db, day(1)))
		say(t, db, statement{text: "Bob from Initech recommended Kyoto", day: 2})
		say(t, db, statement{text: "My sleep has been bad lately", day: 3})
		in, _ := modelIntegrator(t, db, []string{"classify", "entities"},
			`{"domain":"Travels"}`,
			`{"entities":[{"name":"Bob","type":"person","role":"recommender","is_subject":true},{"name":"Initech","type":"organization","role":"employer","is_subject":false},{"name":"Kyoto","type":"place","role":"recommendation","is_subject":false}],"relations":[{"from":"Bob","to":"Initech","relation":"works at"}]}`,
			`{"domain":"Health & Sleep"}`,
			`{"entities":[{"name":"the user","type":"person","role":"subject","is_subject":true}],"relations":[]}`)
		run(t, in)
		if d := factNamed(t, db, "Bob from Initech recommended Kyoto").Domain; d != "travel" {
			t.Errorf("domain %q, want the existing travel", d)
		}
		if d := factNamed(t, db, "My sleep has been bad lately").Domain; d != "health-sleep" {
			t.Errorf("domain %q, want health-sleep", d)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM entity_edges x JOIN entities a ON a.id = x.a_id JOIN entities b ON b.id = x.b_id
		WHERE a.name = 'Bob' AND b.name = 'Initech' AND x.relation = 'works_at'`); n != 1 {
			t.Errorf("works_at edge count = %d", n)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM entity_edges x JOIN entities a ON a.id = x.a_id JOIN entities b ON b.id = x.b_id
		WHERE x.relation = 'co_mention' AND a.name IN ('Bob','Initech','Kyoto') AND b.name IN ('Bob','Initech','Kyoto')`); n != 3 {
			t.Errorf("%d co-mention edges, want 3 among Bob, Initech, Kyoto", n)
		}
	})
}

func TestModelSummary(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "I live in Paris", day: 1})
		say(t, db, statement{text: "I need to renew my passport before March", day: 2})
		in, s := modelIntegrator(t, db, []string{"summarise"},
			`{"summary":"The user lives in Paris and has a passport to renew.","open_threads":["Renew the passport before March"," ","Renew the passport before March"]}`)
		rep := run(t, in)
		sum, ok, err := integrate.LatestSummary(t.Context(), db)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		want := "Last consolidation 2026-01-10T09:00: 2 facts taken in: 2 new, 0 merged into known facts, 0 already known, 0 superseded and 0 conflicts. The user lives in Paris and has a passport to renew."
		if sum.Summary != want || rep.Summary != want {
			t.Errorf("summary = %q", sum.Summary)
		}
		if fmt.Sprint(sum.OpenThreads) != "[Renew the passport before March]" {
			t.Errorf("open threads = %q", sum.OpenThreads)
		}
		if p := s.prompts("summarise"); len(p) != 1 || !strings.Contains(p[0], "- I need to renew my passport before March") {
			t.Errorf("summarise prompt = %q", p)
		}

		// A junk answer (twice: the router retries) leaves the factual summary.
		say(t, db, statement{text: "I prefer green tea", day: 3})
		in, _ = modelIntegrator(t, db, []string{"summarise"}, "Sure! Here is a summary:", "Sure! Here is a summary:")
		rep = run(t, in)
		if rep.StageFailures["summarise"] != 1 || !strings.HasSuffix(rep.Summary, `Newest: "I prefer green tea"; "I need to renew my passport before March"; "I live in Paris".`) {
			t.Errorf("after junk: failures %v, summary %q", rep.StageFailures, rep.Summary)
		}
	})
}
