package stats

import (
	"context"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres/pgtest"
)

// openEngine opens a fresh store on the named engine, configured as a user
// configures it: in config.json, the PostgreSQL URL in the variable
// storage.postgres.url_env names.
func openEngine(t *testing.T, engine string) *pipeline.Pipeline {
	t.Helper()
	dir := t.TempDir()
	cfg := config.Default()
	env := map[string]string{}
	if engine == "postgres" {
		url, schema := pgtest.Schema(t)
		cfg.Storage = config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{URLEnv: "TEAM_MEMORY_URL", Schema: schema}}
		env["TEAM_MEMORY_URL"] = url
	}
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	p, err := pipeline.Open(context.Background(), dir, pipeline.Options{Log: slog.New(slog.DiscardHandler), Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatalf("open %s pipeline: %v", engine, err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestStatsOnEveryEngine: on each engine stats names the engine, where the
// store lives and how it keeps vectors, measures its size, counts what is
// stored and reports the retention window as prune sees it.
func TestStatsOnEveryEngine(t *testing.T) {
	ctx := context.Background()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			p := openEngine(t, engine)
			say(t, p, "s1", "I live in Paris.", "My colleague Robin at Acme is leading the Atlas migration.")
			consolidate(t, p)
			p.Config.Retention.Window = config.NewWindow("30d")
			st, err := Read(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if st.Storage.Engine != engine || !strings.Contains(st.Storage.Vectors, "sign codes") || st.Disk.Engine != engine || st.Disk.FileBytes <= 0 {
				t.Errorf("stats storage %+v, disk engine %q, %d bytes; want %s, vectors said, a measured size", st.Storage, st.Disk.Engine, st.Disk.FileBytes, engine)
			}
			if engine == "postgres" && (!strings.Contains(st.Storage.Where, "schema ") || !strings.Contains(st.Storage.Vectors, "pgvector")) {
				t.Errorf("stats storage %+v: want the schema and server named and pgvector's absence or presence said", st.Storage)
			}
			if st.Facts.Active == 0 || st.Events.Count != 2 || len(st.Unknown) != 0 {
				t.Errorf("stats: facts %+v, events %d, unknown %v; want active facts, the 2 recorded events and every number known", st.Facts, st.Events.Count, st.Unknown)
			}
			past, err := p.PastWindow(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// The floor is now minus the window, read twice: the two reads
			// may fall in different seconds, so it is compared apart.
			if st.Disk.Window != nil && past != nil {
				a, errA := time.Parse(time.RFC3339, st.Disk.Window.Floor)
				b, errB := time.Parse(time.RFC3339, past.Floor)
				if d := b.Sub(a); errA != nil || errB != nil || d < 0 || d > time.Minute {
					t.Errorf("stats floor %v, prune floor %v: want the same floor", st.Disk.Window.Floor, past.Floor)
				}
				w := *st.Disk.Window
				w.Floor = past.Floor
				st.Disk.Window = &w
			}
			if st.Disk.Window == nil || !reflect.DeepEqual(*st.Disk.Window, *past) {
				t.Errorf("stats window %+v, want what prune sees past it: %+v", st.Disk.Window, past)
			}
		})
	}
}
