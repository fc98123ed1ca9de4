package text_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store/storetest"
)

func TestAnalyze(t *testing.T) {
	cases := []struct {
		text     string
		terms    []string
		names    []string
		phrases  []string
		months   []int
		years    []int
		asksWhen bool
	}{
		{text: "When did Caroline go to the LGBTQ support group?", terms: []string{"caroline", "go", "lgbtq", "support", "group"},
			names: []string{"Caroline", "LGBTQ"}, asksWhen: true},
		{text: "who am I", terms: []string{"who", "am", "i"}},
		{text: "running runs run", terms: []string{"running"}},
		{text: `the "exact phrase" here`, terms: []string{"exact", "phrase"}, phrases: []string{"exact phrase"}},
		{text: "What happened in May 2023?", terms: []string{"happened", "2023"}, months: []int{5}, years: []int{2023}},
		{text: "What's Melanie's favourite New York bakery?", terms: []string{"melanie", "favourite", "new", "york", "bakery"},
			names: []string{"Melanie", "New York"}},
		{text: "How long ago did we move to Postgres?", terms: []string{"long", "ago", "move", "postgres"}, names: []string{"Postgres"}, asksWhen: true},
		{text: "", terms: nil},
		{text: `AND OR NEAR * " ( )`, terms: []string{"near"}, names: []string{"NEAR"}},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			a := text.Analyze(c.text)
			if !reflect.DeepEqual(a.Terms, c.terms) {
				t.Errorf("terms = %q, want %q", a.Terms, c.terms)
			}
			if !reflect.DeepEqual(a.Names, c.names) {
				t.Errorf("names = %q, want %q", a.Names, c.names)
			}
			if !reflect.DeepEqual(a.Phrases, c.phrases) {
				t.Errorf("phrases = %q, want %q", a.Phrases, c.phrases)
			}
			if !reflect.DeepEqual(a.Months, c.months) || !reflect.DeepEqual(a.Years, c.years) {
				t.Errorf("months, years = %v, %v; want %v, %v", a.Months, a.Years, c.months, c.years)
			}
			if a.AsksWhen != c.asksWhen {
				t.Errorf("asks when = %v, want %v", a.AsksWhen, c.asksWhen)
			}
			if len(a.Stems) != len(a.Terms) {
				t.Errorf("%d stems for %d terms", len(a.Stems), len(a.Terms))
			}
			if got := text.Terms(c.text); !reflect.DeepEqual(got, c.terms) {
				t.Errorf("Terms = %q, want %q", got, c.terms)
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	cases := map[string]string{
		"When did Caroline go?":    `"caroline" OR "go"`,
		`say "hello world" please`: `"hello world" OR "say" OR "hello" OR "world" OR "please"`,
		"who am I":                 `"who" OR "am" OR "i"`,
		"?!  ...":                  "",
		`NEAR(a b) AND c*`:         `"near" OR "b" OR "c"`,
	}
	eng := storetest.Open(t, "sqlite").Engine()
	for in, want := range cases {
		if got := eng.TextQuery(text.Sanitize(in)); got != want {
			t.Errorf("text.Sanitize(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestSanitizeIsValidFTS5 runs each sanitised query through a real FTS5
// index: whatever the user typed, the query parses.
func TestSanitizeIsValidFTS5(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	for _, in := range []string{`"unbalanced`, `a"b"c"`, `col:value`, `^start`, `-minus +plus`, `{a b}`, `x NOT y`, "naïve café", "日本語のテキスト", "emoji 🎉 here", "tab\tand\nnewline"} {
		q := db.Engine().TextQuery(text.Sanitize(in))
		if q == "" {
			t.Errorf("text.Sanitize(%q) is empty", in)
			continue
		}
		if _, err := db.Exec(`SELECT count(*) FROM facts_fts WHERE facts_fts MATCH ?`, q); err != nil {
			t.Errorf("text.Sanitize(%q) = %s: FTS5 refuses it: %v", in, q, err)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"When did Caroline go?", `"quoted phrase" rest`, `AND OR NOT NEAR(a b, 3)`, `col:x ^y -z *`, "naïve 日本 🎉", `""""`, "a\x00b"} {
		f.Add(s)
	}
	db := storetest.Open(f, "sqlite")
	f.Fuzz(func(t *testing.T, s string) {
		q := db.Engine().TextQuery(text.Sanitize(s))
		if q == "" {
			if len(text.Terms(s)) > 0 {
				t.Fatalf("text.Sanitize(%q) is empty but the text has words %q", s, text.Terms(s))
			}
			return
		}
		if _, err := db.Exec(`SELECT count(*) FROM facts_fts WHERE facts_fts MATCH ?`, q); err != nil {
			t.Fatalf("text.Sanitize(%q) = %s: FTS5 refuses it: %v", s, q, err)
		}
		if strings.Count(q, `"`)%2 != 0 {
			t.Fatalf("text.Sanitize(%q) = %s: unbalanced quotes", s, q)
		}
	})
}

func TestEvents(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{text: "Which did I do first, the piano recital or the chess club?",
			want: []string{"Which did I do first, the piano recital", "the chess club"}},
		{text: "How many days passed between the day I sold the van and the day I bought a bike?",
			want: []string{"the day I sold the van", "the day I bought a bike"}},
		{text: "How many weeks after the move did I start the new job?",
			want: nil},
		{text: "How long after starting at Acme did I get promoted?",
			want: nil},
		{text: "How long did the trip to Lisbon take before the visa and the flights?",
			want: []string{"How long did the trip to Lisbon take", "the visa", "the flights"}},
		{text: "Which did I visit first, Orlando OR Andorra?",
			want: []string{"Which did I visit first, Orlando", "Andorra"}},
		{text: "Did I buy the lamp or the chair?", want: nil},
		{text: "What did I cook first?", want: nil},
		{text: "", want: nil},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			got := text.Events(c.text)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Events = %q, want %q", got, c.want)
			}
		})
	}
}
