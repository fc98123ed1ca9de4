package graph_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/recollect/recollect/graph"
)

func TestEntityLookup(t *testing.T) {
	db := newDB(t)
	ctx := context.Background()
	about := addFact(t, db, fact{content: "Mercury is written in Go", importance: 0.4,
		entities: []ent{{name: "Mercury", typ: "project", role: "subject", subject: true}, {name: "Go", typ: "thing"}}})
	mention := addFact(t, db, fact{content: "Sarah reviews Mercury pull requests", importance: 0.9,
		entities: []ent{{name: "Sarah", typ: "person", role: "subject", subject: true}, {name: "Mercury", typ: "project"}}})
	person := addFact(t, db, fact{content: "Freddie Mercury sang Bohemian Rhapsody",
		entities: []ent{{name: "Mercury", typ: "person", role: "subject", subject: true}}})
	gone := addFact(t, db, fact{content: "Mercury used Python", entities: []ent{{name: "Mercury", typ: "project", subject: true}}})
	supersede(t, db, gone, about)

	ans, err := graph.NewReader(db).Entity(ctx, graph.EntityQuery{Name: "mercury"})
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Found || len(ans.Entities) != 2 {
		t.Fatalf("want both Mercury rows (project and person), got %+v", ans.Entities)
	}
	got := ids(hitsOf(ans.Facts))
	if !slices.Equal(got, []int64{person, about, mention}) {
		t.Fatalf("facts = %v, want facts about it first by importance (%d, %d) then the mention %d; superseded %d left out", got, person, about, mention, gone)
	}
	if !ans.Facts[1].IsSubject || ans.Facts[1].Role != "subject" || ans.Facts[2].IsSubject || ans.Facts[2].Role != "mention" {
		t.Errorf("roles: %+v", ans.Facts)
	}
	var names []string
	for _, c := range ans.Connected {
		names = append(names, c.Name)
	}
	if !slices.Contains(names, "Go") || !slices.Contains(names, "Sarah") {
		t.Errorf("connected = %v", names)
	}

	typed, err := graph.NewReader(db).Entity(ctx, graph.EntityQuery{Name: "Mercury", Type: "person"})
	if err != nil {
		t.Fatal(err)
	}
	if len(typed.Entities) != 1 || typed.Entities[0].Type != "person" || !slices.Equal(ids(hitsOf(typed.Facts)), []int64{person}) {
		t.Errorf("--type person: %+v", typed)
	}

	none, err := graph.NewReader(db).Entity(ctx, graph.EntityQuery{Name: "pull requests"})
	if err != nil {
		t.Fatal(err)
	}
	if none.Found || len(none.Facts) != 1 || none.Facts[0].ID != mention || none.Facts[0].IsSubject {
		t.Fatalf("unknown name: %+v", none)
	}
	var b bytes.Buffer
	graph.RenderEntity(&b, none)
	if !strings.Contains(b.String(), `No entity is named "pull requests". 1 fact mentions the wording (none is linked to it as an entity)`) {
		t.Errorf("rendered:\n%s", b.String())
	}
	wrongType, err := graph.NewReader(db).Entity(ctx, graph.EntityQuery{Name: "Sarah", Type: "place"})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	graph.RenderEntity(&b, wrongType)
	if want := `No entity is named "Sarah" with type place (it is a person: leave out --type, or give --type person).`; !strings.HasPrefix(b.String(), want) {
		t.Errorf("rendered %q, want it to start %q", b.String(), want)
	}
	nothing, err := graph.NewReader(db).Entity(ctx, graph.EntityQuery{Name: "zeppelin"})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	graph.RenderEntity(&b, nothing)
	if want := "No entity is named \"zeppelin\", and no fact mentions the wording.\n"; b.String() != want {
		t.Errorf("rendered %q, want %q", b.String(), want)
	}
	if _, err := graph.NewReader(db).Entity(ctx, graph.EntityQuery{Name: "?!"}); err == nil {
		t.Errorf("a name without letters must be refused")
	}
}

func hitsOf(efs []graph.EntityFact) []graph.Hit {
	out := make([]graph.Hit, len(efs))
	for i, ef := range efs {
		out[i] = ef.Hit
	}
	return out
}

func TestContextWalksTheGraph(t *testing.T) {
	db := newDB(t)
	seed := addFact(t, db, fact{content: "The Atlas migration starts in March",
		entities: []ent{{name: "Atlas", typ: "project", subject: true, role: "subject"}}})
	hop1 := addFact(t, db, fact{content: "Sarah owns it",
		entities: []ent{{name: "Sarah", typ: "person", subject: true, role: "subject"}, {name: "Atlas", typ: "project"}}})
	hop1b := addFact(t, db, fact{content: "She mentors Tom",
		entities: []ent{{name: "Sarah", typ: "person", subject: true}, {name: "Tom", typ: "person"}}})
	hop2 := addFact(t, db, fact{content: "Tom lunches with Kim",
		entities: []ent{{name: "Tom", typ: "person", subject: true}, {name: "Kim", typ: "person"}}})
	kimOnly := addFact(t, db, fact{content: "Kim plays chess", entities: []ent{{name: "Kim", typ: "person", subject: true}}})
	addFact(t, db, fact{content: "Unrelated: the printer jams"})

	ans, err := graph.NewReader(db).Context(context.Background(), graph.ContextQuery{Topic: "Atlas"})
	if err != nil {
		t.Fatal(err)
	}
	// Seeds: Atlas (named) and Sarah (in a hit); Tom is one hop out, Kim two.
	got := ids(ctxHits(ans.Facts))
	if !slices.Equal(got, []int64{seed, hop1, hop1b, hop2, kimOnly}) {
		t.Errorf("facts = %v, want each related fact once, nearest first", got)
	}
	for _, f := range ans.Facts {
		if f.ID == kimOnly && (f.Hops != 2 || !strings.Contains(strings.Join(f.Path, " → "), "→ Tom (person) → co_mention (strength 1) → Kim (person)")) {
			t.Errorf("Kim's fact path = %v (hops %d)", f.Path, f.Hops)
		}
	}
	one, err := graph.NewReader(db).Context(context.Background(), graph.ContextQuery{Topic: "Atlas", Hops: 1})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ids(ctxHits(one.Facts)), kimOnly) {
		t.Errorf("one hop reached a fact two hops out")
	}
	var b bytes.Buffer
	graph.RenderContext(&b, ans)
	if !strings.Contains(b.String(), "reached by: ") {
		t.Errorf("rendered:\n%s", b.String())
	}
}

func ctxHits(cfs []graph.ContextFact) []graph.Hit {
	out := make([]graph.Hit, len(cfs))
	for i, cf := range cfs {
		out[i] = cf.Hit
	}
	return out
}
