package integrate_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/extract/model/modeltest"
	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// embedHost is a model host serving both embedding wire formats.
type embedHost struct {
	*modeltest.Host
	emb *modeltest.Embeddings
}

func newEmbedHost(t *testing.T, dim int) *embedHost {
	h := modeltest.NewHost(t, "nomic-embed-text")
	return &embedHost{Host: h, emb: h.ServeEmbeddings(dim)}
}

// inputs are the texts of each embedding request, in order.
func (h *embedHost) inputs(t *testing.T) [][]string {
	t.Helper()
	var out [][]string
	for _, r := range h.Requests() {
		if r.Path != "/api/embed" && r.Path != "/v1/embeddings" {
			continue
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := r.Decode(&req); err != nil {
			t.Fatal(err)
		}
		out = append(out, req.Input)
	}
	return out
}

var vectorOf = modeltest.Vector

func TestEmbedMissingBothWireFormats(t *testing.T) {
	for _, tc := range []struct {
		provider, base string
	}{{"ollama", ""}, {"http", "/v1"}} {
		storetest.Run(t, tc.provider, func(t *testing.T, db *store.DB) {
			host := newEmbedHost(t, 8)
			texts := []string{"I live in Paris", "I prefer green tea", "Alice works at Acme Corp", "The build uses Bazel"}
			for i, s := range texts {
				say(t, db, statement{text: s, day: i + 1})
			}
			cfg := config.Embedding{Provider: tc.provider, Model: "nomic-embed-text", BaseURL: host.URL + tc.base, BatchSize: 3}
			emb, err := model.NewEmbedder(cfg, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			in := newIntegrator(db, day(5))
			in.Embedder = emb
			in.Config.Embedding = cfg
			rep := run(t, in)
			want := integrate.EmbedReport{Space: tc.provider + "/nomic-embed-text/8", Embedded: 4, Missing: 0}
			if rep.Embedding == nil || *rep.Embedding != want {
				t.Fatalf("embedding report = %+v, want %+v", rep.Embedding, want)
			}
			if in := host.inputs(t); len(in) != 2 || len(in[0]) != 3 {
				t.Errorf("host saw batches %v, want 3 then 1", in)
			}
			// The stored bytes are the little-endian float32 bits of what the host sent.
			rows, err := db.QueryContext(context.Background(), `SELECT f.content, e.vector FROM embeddings e JOIN facts f ON f.id = e.fact_id`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			n := 0
			for rows.Next() {
				var content string
				var blob []byte
				if err := rows.Scan(&content, &blob); err != nil {
					t.Fatal(err)
				}
				wantBytes := make([]byte, 0, 32)
				for _, x := range vectorOf(content, 8) {
					wantBytes = binary.LittleEndian.AppendUint32(wantBytes, math.Float32bits(x))
				}
				if !bytes.Equal(blob, wantBytes) {
					t.Errorf("%q: stored % x, want % x", content, blob, wantBytes)
				}
				n++
			}
			if n != 4 {
				t.Errorf("%d vectors stored, want 4", n)
			}
			// A second run has nothing to embed.
			say(t, db, statement{text: "I moved to Berlin", day: 9})
			rep = run(t, in)
			if in := host.inputs(t); rep.Embedding.Embedded != 1 || len(in) != 3 || in[2][0] != "I moved to Berlin" {
				t.Errorf("second run embedded %d, host saw %v", rep.Embedding.Embedded, in)
			}
			sp, ok, err := integrate.WorkingSpace(context.Background(), db, cfg)
			if err != nil || !ok || sp != (vector.Space{Provider: tc.provider, Model: "nomic-embed-text", Dim: 8}) {
				t.Errorf("working space = %v %v %v", sp, ok, err)
			}
		})
	}
}

func TestEmbeddingSpacesNeverMix(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		say(t, db, statement{text: "I live in Paris", day: 1})
		say(t, db, statement{text: "I prefer green tea", day: 2})
		run(t, newIntegrator(db, day(2)))
		paris := factNamed(t, db, "I live in Paris").ID
		old := vector.Space{Provider: "ollama", Model: "all-minilm", Dim: 4}
		cur := vector.Space{Provider: "ollama", Model: "nomic-embed-text", Dim: 8}
		if err := integrate.StoreVector(ctx, db, paris, old, []float32{1, 0, 0, 0}); err != nil {
			t.Fatal(err)
		}
		if err := integrate.StoreVector(ctx, db, paris, cur, vectorOf("x", 8)); err != nil {
			t.Fatal(err)
		}
		t.Run("NaN and Inf are refused at write", func(t *testing.T) {
			for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
				v := vectorOf("y", 8)
				v[3] = bad
				err := integrate.StoreVector(ctx, db, paris, cur, v)
				if !errors.Is(err, vector.ErrNonFinite) {
					t.Errorf("component %v: err = %v, want ErrNonFinite", bad, err)
				}
			}
			vs, err := integrate.Vectors(ctx, db, cur)
			if err != nil || math.IsNaN(float64(vs[paris][3])) {
				t.Errorf("stored vector changed by a refused write: %v %v", vs[paris], err)
			}
		})
		t.Run("a vector of the wrong dimension is refused", func(t *testing.T) {
			if err := integrate.StoreVector(ctx, db, paris, cur, []float32{1, 2, 3}); !errors.Is(err, vector.ErrSpaceMismatch) {
				t.Errorf("err = %v, want ErrSpaceMismatch", err)
			}
		})
		t.Run("reads return only the asked space", func(t *testing.T) {
			vs, err := integrate.Vectors(ctx, db, cur)
			if err != nil || len(vs) != 1 || len(vs[paris]) != 8 {
				t.Fatalf("vectors of %s = %v, %v", cur, vs, err)
			}
			oldVs, _ := integrate.Vectors(ctx, db, old)
			if _, err := vector.Cosine(cur, vs[paris], old, oldVs[paris]); !errors.Is(err, vector.ErrSpaceMismatch) {
				t.Errorf("comparing across spaces: err = %v", err)
			}
			other := vector.Space{Provider: "ollama", Model: "nomic-embed-text", Dim: 4}
			if vs, _ := integrate.Vectors(ctx, db, other); len(vs) != 0 {
				t.Errorf("same model, other dimension returned %d vectors", len(vs))
			}
		})
		t.Run("coverage lists leftovers", func(t *testing.T) {
			cov, err := integrate.EmbeddingCoverage(ctx, db, cur)
			if err != nil {
				t.Fatal(err)
			}
			if cov.Embedded != 1 || cov.Missing != 1 || len(cov.Leftover) != 1 || cov.Leftover[0] != (integrate.SpaceCount{Space: old, Vectors: 1}) {
				t.Errorf("coverage = %+v", cov)
			}
		})
	})
}

func TestEmbedFailureIsReportedAndRecorded(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		host := newEmbedHost(t, 8)
		host.emb.Fail(http.StatusServiceUnavailable)
		say(t, db, statement{text: "I live in Paris", day: 1})
		emb, err := model.NewEmbedder(config.Embedding{Provider: "http", Model: "text-embedding-3-small", BaseURL: host.URL + "/v1"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		in := newIntegrator(db, day(1))
		in.Embedder = emb
		rep := run(t, in)
		if rep.Integrated != 1 {
			t.Fatalf("a failed embedding lost the fact: %+v", rep)
		}
		e := rep.Embedding
		if e == nil || e.Embedded != 0 || e.Missing != 1 || !strings.Contains(e.Error, "HTTP 503: model overloaded") {
			t.Fatalf("embedding report = %+v", e)
		}
		var failures int
		if err := db.QueryRowContext(context.Background(), `SELECT consecutive_failures FROM stage_health WHERE stage = 'embed' AND provider = 'http'`).Scan(&failures); err != nil || failures != 1 {
			t.Errorf("stage_health embed failures = %d, %v", failures, err)
		}
	})
}

func TestNewEmbedderErrors(t *testing.T) {
	cases := []struct {
		cfg  config.Embedding
		want string
	}{
		{config.Embedding{}, "embeddings are off"},
		{config.Embedding{Provider: "ollama"}, "embedding.model: embeddings are on but no model is named"},
		{config.Embedding{Provider: "http", Model: "m", APIKeyEnv: "EMBED_KEY"}, "embedding.api_key_env: EMBED_KEY is empty; export it"},
		{config.Embedding{Provider: "cohere", Model: "m"}, `unknown provider "cohere"`},
	}
	for _, c := range cases {
		_, err := model.NewEmbedder(c.cfg, func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewEmbedder(%+v) = %v, want %q", c.cfg, err, c.want)
		}
	}
}

func TestModelSwapStartsANewSpace(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		host := newEmbedHost(t, 8)
		cfg := config.Embedding{Provider: "ollama", Model: "nomic-embed-text", BaseURL: host.URL, BatchSize: 32}
		embedder := func() model.Embedder {
			e, err := model.NewEmbedder(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		say(t, db, statement{text: "I live in Paris", day: 1})
		say(t, db, statement{text: "I prefer green tea", day: 2})
		in := newIntegrator(db, day(2))
		in.Embedder = embedder()
		run(t, in)
		host.emb.SetDim(4) // the model under that name now answers in 4 dimensions
		// Berlin supersedes Paris: the two active facts (tea, Berlin) are embedded anew.
		say(t, db, statement{text: "I moved to Berlin", day: 5})
		in.Embedder = embedder() // a new process: the dimension is learnt again
		rep := run(t, in)
		if want := (integrate.EmbedReport{Space: "ollama/nomic-embed-text/4", Embedded: 2, Missing: 0}); *rep.Embedding != want {
			t.Errorf("after the swap: %+v, want %+v", *rep.Embedding, want)
		}
		sp := vector.Space{Provider: "ollama", Model: "nomic-embed-text", Dim: 4}
		cov, err := integrate.EmbeddingCoverage(ctx, db, sp)
		if err != nil {
			t.Fatal(err)
		}
		old := vector.Space{Provider: "ollama", Model: "nomic-embed-text", Dim: 8}
		if cov.Embedded != 2 || cov.Missing != 0 || len(cov.Leftover) != 1 || cov.Leftover[0] != (integrate.SpaceCount{Space: old, Vectors: 2}) {
			t.Errorf("coverage = %+v", cov)
		}
		if ws, ok, err := integrate.WorkingSpace(ctx, db, cfg); err != nil || !ok || ws != sp {
			t.Errorf("working space = %v %v %v", ws, ok, err)
		}
	})
}

// TestBackfillCodes: vectors stored before sign codes existed get theirs
// from BackfillCodes, each once; vectors stored now come with one.
func TestBackfillCodes(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		for _, s := range []string{"I live in Paris", "I prefer green tea", "I moved to Berlin"} {
			say(t, db, statement{text: s, day: 1})
		}
		run(t, newIntegrator(db, day(2)))
		sp := vector.Space{Provider: "ollama", Model: "nomic-embed-text", Dim: 8}
		codes := func() int {
			var n int
			if err := db.QueryRowContext(context.Background(), `SELECT count(*) FROM vector_codes WHERE provider = ? AND model = ? AND dim = ?`, sp.Provider, sp.Model, sp.Dim).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		// Two vectors written the old way: no code.
		for _, name := range []string{"I live in Paris", "I prefer green tea"} {
			b, err := vector.Encode(vectorOf(name, 8))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(context.Background(), `INSERT INTO embeddings(fact_id, provider, model, dim, vector, created_at) VALUES (?,?,?,?,?,'2026-01-01T00:00:00Z')`,
				factNamed(t, db, name).ID, sp.Provider, sp.Model, sp.Dim, b); err != nil {
				t.Fatal(err)
			}
		}
		berlin := factNamed(t, db, "I moved to Berlin").ID
		if err := integrate.StoreVector(ctx, db, berlin, sp, vectorOf("berlin", 8)); err != nil {
			t.Fatal(err)
		}
		if n := codes(); n != 1 {
			t.Fatalf("%d codes after StoreVector, want 1", n)
		}
		n, err := integrate.BackfillCodes(ctx, db, sp, 1)
		if err != nil || n != 2 || codes() != 3 {
			t.Fatalf("backfill wrote %d (%v); %d codes, want 2 and 3", n, err, codes())
		}
		var code []byte
		db.QueryRowContext(context.Background(), `SELECT code FROM vector_codes WHERE fact_id = ?`, factNamed(t, db, "I live in Paris").ID).Scan(&code)
		if !bytes.Equal(code, vector.SignCode(vectorOf("I live in Paris", 8))) {
			t.Errorf("backfilled code %08b is not the vector's sign code", code)
		}
		if n, err := integrate.BackfillCodes(ctx, db, sp, 1); err != nil || n != 0 {
			t.Fatalf("second backfill wrote %d (%v), want 0", n, err)
		}
	})
}
