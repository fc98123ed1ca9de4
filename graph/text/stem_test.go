package text_test

import (
	"strings"
	"testing"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// stemProbe asks a real FTS5 porter index for the stems of words.
type stemProbe struct{ db *store.DB }

func newStemProbe(tb testing.TB) stemProbe {
	tb.Helper()
	db := storetest.Open(tb, "sqlite")
	if _, err := db.Exec(`CREATE VIRTUAL TABLE stem_probe USING fts5(x, tokenize='porter unicode61');
		CREATE VIRTUAL TABLE stem_probe_v USING fts5vocab(stem_probe, 'instance')`); err != nil {
		tb.Fatal(err)
	}
	return stemProbe{db}
}

func (p stemProbe) stems(tb testing.TB, words []string) []string {
	tb.Helper()
	if _, err := p.db.Exec(`DELETE FROM stem_probe`); err != nil {
		tb.Fatal(err)
	}
	for i, w := range words {
		if _, err := p.db.Exec(`INSERT INTO stem_probe(rowid, x) VALUES (?, ?)`, i+1, w); err != nil {
			tb.Fatal(err)
		}
	}
	out := make([]string, len(words))
	rows, err := p.db.Query(`SELECT doc, term FROM stem_probe_v`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			tb.Fatal(err)
		}
		out[doc-1] = term
	}
	return out
}

// stemWords covers every rule of every step, the length limits, and
// words whose suffix matches but whose condition fails.
var stemWords = strings.Fields(`
caresses ponies ties caress cats sses ies feed agreed plastered bled motoring sing conflated troubled sized hopping
tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci digitizer
conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness
hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti electrical
hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant replacement
adjustment dependent adoption homologou communism activate angulariti homologous effective bowdlerize probate rate
cease controll roll generalizations oscillators dancing dance danced dances researching research researched
adoption agencies transgender support group running runs run ran happily ab abc aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
aing eing ying eed sing ed ing bing logi bli abli eli alli yyy yes y2k 2023 x11 dying lying tying
`)

func TestStemMatchesFTS5(t *testing.T) {
	want := newStemProbe(t).stems(t, stemWords)
	for i, w := range stemWords {
		if got := text.Stem(w); got != want[i] {
			t.Errorf("text.Stem(%q) = %q, FTS5 porter stores %q", w, got, want[i])
		}
	}
}

func FuzzStem(f *testing.F) {
	for _, w := range stemWords {
		f.Add(w)
	}
	probe := newStemProbe(f)
	f.Fuzz(func(t *testing.T, s string) {
		// One ASCII lowercase token, as unicode61 hands it to porter.
		w := strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, strings.ToLower(s))
		if w == "" {
			return
		}
		if got, want := text.Stem(w), probe.stems(t, []string{w})[0]; got != want {
			t.Fatalf("text.Stem(%q) = %q, FTS5 porter stores %q", w, got, want)
		}
	})
}

// TestVariantBridgesPorterGap: Porter stems "deployment" to "deploy" but
// "deploy" to "deploi"; the query also searches the variant, so a search
// for "deployment" finds facts saying deploy, deploys or deployed — checked
// against a real FTS5 porter index, both for the stems and for the match.
func TestVariantBridgesPorterGap(t *testing.T) {
	cases := map[string]string{"deployment": "deploy", "employer": "employ", "enjoyable": "enjoy",
		"deploy": "", "deployed": "", "please": "", "running": "", "agreed": "", "happiness": ""}
	for term, want := range cases {
		if got := text.Variant(term); got != want {
			t.Errorf("text.Variant(%q) = %q, want %q", term, got, want)
		}
	}
	p := newStemProbe(t)
	got := p.stems(t, []string{"deployment", "deploy", "deployed", "deploys"})
	if got[0] != text.Stem("deployment") || got[1] != text.Stem("deploy") || got[0] == got[1] || got[2] != got[1] || got[3] != got[1] {
		t.Fatalf("FTS5 porter stems %v; Stem says %s, %s", got, text.Stem("deployment"), text.Stem("deploy"))
	}
	fts5 := storetest.Open(t, "sqlite").Engine().TextQuery(text.Sanitize("deployment"))
	if m := fts5; m != `"deployment" OR "deploy"` {
		t.Fatalf("text.Sanitize(deployment) = %s", m)
	}
	var n int
	if _, err := p.db.Exec(`DELETE FROM stem_probe; INSERT INTO stem_probe(rowid, x) VALUES (1, 'We deploy on Fridays'), (2, 'It was deployed'), (3, 'The deployment plan'), (4, 'Lunch')`); err != nil {
		t.Fatal(err)
	}
	if err := p.db.QueryRow(`SELECT count(*) FROM stem_probe WHERE stem_probe MATCH ?`, fts5).Scan(&n); err != nil || n != 3 {
		t.Fatalf("search deployment matched %d of the three deploy facts (%v)", n, err)
	}
}
