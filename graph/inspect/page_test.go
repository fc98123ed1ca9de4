package inspect_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/recollect/recollect/graph/inspect"
	"github.com/recollect/recollect/store/storetest"
)

// TestPageIsSelfContained: nothing in the page points off it, a
// Content-Security-Policy forbids fetching, and hostile text in the data
// cannot close the data's script element.
func TestPageIsSelfContained(t *testing.T) {
	p := fixtureStore(t)
	d, err := inspect.Read(context.Background(), p.Reader, inspect.Options{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	hostile := `</script><script>alert(1)</script>`
	d.Facts = append(d.Facts, inspect.FactRow{ID: 999, Content: hostile, Entities: []string{}})
	var buf bytes.Buffer
	if err := inspect.WritePage(&buf, d); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if strings.Contains(page, hostile) {
		t.Fatal("the page holds fact text that closes its script element")
	}
	for _, re := range []string{`(?i)\bsrc\s*=`, `(?i)\bhref\s*=`, `(?i)@import`, `(?i)url\(`, `(?i)https?://(?:[^w]|w[^w]|ww[^w]|www[^.]|www\.[^w])`} {
		if m := regexp.MustCompile(re).FindString(page); m != "" {
			t.Errorf("the page refers outside itself: %q matches %s", m, re)
		}
	}
	if !strings.Contains(page, `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"`) {
		t.Error("the page lacks its no-network Content-Security-Policy")
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no data element")
	}
	var back inspect.Data
	if err := json.Unmarshal([]byte(m[1]), &back); err != nil {
		t.Fatalf("embedded data is not JSON: %v", err)
	}
	if len(back.Graph.Nodes) != len(d.Graph.Nodes) || back.Facts[len(back.Facts)-1].Content != hostile {
		t.Fatal("embedded data does not round-trip")
	}
}

// TestReadCapsAndScopes: the page's data keeps to its caps, newest and
// best connected first, and scopes to an entity, on both engines.
func TestReadCapsAndScopes(t *testing.T) {
	for _, engine := range storetest.Engines {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			p := fixtureStoreOn(t, engine)
			d, err := inspect.Read(ctx, p.Reader, inspect.Options{Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Events) != 5 || len(d.Facts) != 5 || len(d.Entities) != 5 || d.Graph.Drawn != 5 || len(d.Graph.Nodes) <= 5 {
				t.Fatalf("caps: %d events, %d facts, %d entities, %d of %d drawn", len(d.Events), len(d.Facts), len(d.Entities), d.Graph.Drawn, len(d.Graph.Nodes))
			}
			if d.Events[0].Seq < d.Events[1].Seq || d.Facts[0].ID < d.Facts[1].ID {
				t.Fatal("samples are not newest first")
			}
			for i := 1; i < len(d.Graph.Nodes); i++ {
				if d.Graph.Nodes[i].Degree > d.Graph.Nodes[i-1].Degree {
					t.Fatal("nodes are not best connected first")
				}
			}
			scoped, err := inspect.Read(ctx, p.Reader, inspect.Options{Limit: 50, Entity: "priya"})
			if err != nil {
				t.Fatal(err)
			}
			if len(scoped.Facts) != 3 {
				t.Fatalf("facts mentioning Priya: %d, want 3", len(scoped.Facts))
			}
			for _, f := range scoped.Facts {
				if !strings.Contains(f.Content, "Priya") {
					t.Fatalf("fact outside the entity's scope: %q", f.Content)
				}
			}
			var none *inspect.ErrNoEntity
			if _, err := inspect.Read(ctx, p.Reader, inspect.Options{Entity: "Nobody Here"}); err == nil || !strings.Contains(err.Error(), `no entity named "Nobody Here"; run recollect inspect --layer entities to list them`) {
				t.Fatalf("unknown entity: %v", err)
			} else if !asNoEntity(err, &none) {
				t.Fatalf("unknown entity error is %T", err)
			}
		})
	}
}

// TestReadOnlyTheLayers: a table reads its own rows and no other layer's
// (the graph joins every active fact to its entities), the counts always;
// the entities table is drawn from the graph, so it reads the graph. The
// rows read are those a read of everything gives.
func TestReadOnlyTheLayers(t *testing.T) {
	ctx := context.Background()
	p := fixtureStore(t)
	all, err := inspect.Read(ctx, p.Reader, inspect.Options{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		layers                             []string
		events, extracted, facts, entities bool
	}{
		{layers: []string{"k"}, facts: true},
		{layers: []string{"d", "i"}, events: true, extracted: true},
		{layers: []string{"entities"}, entities: true},
		{layers: []string{"graph"}, entities: true},
		{layers: []string{"health"}},
	} {
		d, err := inspect.Read(ctx, p.Reader, inspect.Options{Limit: 5, Layers: c.layers})
		if err != nil {
			t.Fatal(err)
		}
		if d.Counts != all.Counts {
			t.Errorf("%v: counts %+v, want %+v", c.layers, d.Counts, all.Counts)
		}
		for _, part := range []struct {
			name       string
			read, want bool
			same       bool
		}{
			{"events", len(d.Events) > 0, c.events, fmt.Sprint(d.Events) == fmt.Sprint(all.Events)},
			{"extracted", len(d.Extracted) > 0, c.extracted, fmt.Sprint(d.Extracted) == fmt.Sprint(all.Extracted)},
			{"facts", len(d.Facts) > 0, c.facts, fmt.Sprint(d.Facts) == fmt.Sprint(all.Facts)},
			{"graph", len(d.Graph.Nodes) > 0, c.entities, fmt.Sprint(d.Entities, d.Graph) == fmt.Sprint(all.Entities, all.Graph)},
		} {
			if part.read != part.want || (part.want && !part.same) {
				t.Errorf("%v: %s read %v (the same as a read of everything: %v), want read %v", c.layers, part.name, part.read, part.same, part.want)
			}
		}
	}
}

func asNoEntity(err error, target **inspect.ErrNoEntity) bool {
	e, ok := err.(*inspect.ErrNoEntity)
	*target = e
	return ok
}

func TestWritePageFileIsPrivate(t *testing.T) {
	p := fixtureStore(t)
	d, err := inspect.Read(context.Background(), p.Reader, inspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "inspect.html")
	if err := inspect.WritePageFile(path, d); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("page file: %v, mode %v", err, fi.Mode())
	}
}

// TestKnowledgeHeadingCountsInWords: one fact is "1 fact", as elsewhere.
func TestKnowledgeHeadingCountsInWords(t *testing.T) {
	for n, want := range map[int]string{1: "(newest 0; 1 fact, 1 active)", 2: "(newest 0; 2 facts, 1 active)"} {
		var b bytes.Buffer
		if err := inspect.PrintLayer(&b, inspect.Data{Counts: inspect.Counts{Facts: n, Active: 1}}, "k"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%d facts: heading %q, want %q", n, strings.SplitN(b.String(), "\n", 2)[0], want)
		}
	}
}
