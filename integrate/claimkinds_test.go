package integrate

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// statementCorpus is every statement the tests have at hand: the labelled
// supersession set, the mentions set, and the sentences of the real
// transcripts under fixtures/transcripts (code, paths, versions and all).
func statementCorpus(t testing.TB) (labelled, all []string) {
	t.Helper()
	seen := map[string]bool{}
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && !seen[s] {
			seen[s] = true
			all = append(all, s)
		}
	}
	var set []struct{ Older, Newer, Text string }
	for _, f := range []string{"testdata/supersession.json", "testdata/mentions.json"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		set = set[:0]
		if err := json.Unmarshal(raw, &set); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range set {
			for _, s := range []string{c.Older, c.Newer, c.Text} {
				if s != "" {
					labelled = append(labelled, s)
					add(s)
				}
			}
		}
	}
	err := filepath.WalkDir("../fixtures/transcripts", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var v any
			if json.Unmarshal(line, &v) != nil {
				continue
			}
			for _, text := range stringsIn(v) {
				for _, s := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '.' || r == '?' || r == '!' }) {
					if n := len(strings.Fields(s)); n >= 3 && n <= 60 {
						add(s + ".")
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 5000 {
		t.Fatalf("%d statements in the corpus, want thousands: are the fixture transcripts there?", len(all))
	}
	return labelled, all
}

// stringsIn lists the strings of a decoded JSON value.
func stringsIn(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, stringsIn(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, e := range x {
			out = append(out, stringsIn(e)...)
		}
		return out
	}
	return nil
}

// checkPossibleKinds fails when the reading of text holds a claim kind
// possibleKinds does not allow, or a replaced value without the words
// the filter looks for.
func checkPossibleKinds(t *testing.T, text string) {
	t.Helper()
	if strings.ContainsAny(text, foldsToASCII) {
		return // always read
	}
	low := strings.ToLower(text)
	for _, speaker := range []string{"user", "Ana"} {
		r := readStatement(text, speaker)
		if got, allowed := r.kinds(), possibleKinds(low); got&^allowed != 0 {
			t.Errorf("%q reads as kinds %b; the filter allows only %b", text, got, allowed)
		}
		for _, c := range r {
			if len(c.replaced) > 0 && !namesReplaced(low) {
				t.Errorf("%q names %q as replaced, holding none of the words the filter looks for", text, c.replaced[0].text)
			}
		}
	}
}

// TestPossibleKinds reads every statement of the corpus: the kinds of its
// claims are always among those its words allow, and it names a replaced
// value only with one of the words the filter looks for.
func TestPossibleKinds(t *testing.T) {
	_, all := statementCorpus(t)
	kinded := 0
	for _, s := range all {
		checkPossibleKinds(t, s)
		if readStatement(s, "user").kinds() != 0 {
			kinded++
		}
	}
	if kinded < 300 {
		t.Fatalf("only %d of %d statements claim anything: the check checks nothing", kinded, len(all))
	}
}

// ruleStatements hold each word the rules read a claim kind (or a
// replaced value, "replaced") from, one statement a word.
var ruleStatements = []struct{ kind, text string }{
	{"port", "The API listens on port 8080."}, {"port", "The app runs at localhost:3000."},
	{"version", "We run Go 1.22."}, {"version", "The app needs Python 3 now."}, {"version", "We are on version 5."},
	{"residence", "I live in Berlin."}, {"residence", "Ana lives in Porto."}, {"residence", "I am living in Rome."},
	{"residence", "I lived in Oslo."}, {"residence", "I reside in Madrid."}, {"residence", "We are based in Lyon."},
	{"residence", "I settled in Kyoto."}, {"residence", "I moved to Lisbon."}, {"residence", "I am moving to Paris."},
	{"residence", "I relocated to Austin."}, {"residence", "We relocate to Denver."}, {"residence", "My flat is in Leeds."},
	{"residence", "My apartment is in Queens."}, {"residence", "My house is in Bath."}, {"residence", "My home is in Cork."},
	{"employer", "I work at Acme."}, {"employer", "Dana works for Initech."}, {"employer", "I am working at Globex."},
	{"employer", "I worked for Hooli."}, {"employer", "I am employed at Stark."}, {"employer", "I have a job at Wayne."},
	{"employer", "My employer is Umbrella."},
	{"host", "We deploy spotter to Fly.io."}, {"host", "We ship the app to Render."}, {"host", "We publish the docs on Netlify."},
	{"host", "We host the blog on Pages."},
	{"location", "Backups are stored in S3."}, {"location", "The keys are kept in Vault."}, {"location", "The repo is located on GitLab."},
	{"location", "Logs are saved to Loki."}, {"location", "Photos are backed up to B2."},
	{"owner", "The billing service is owned by Dana."}, {"owner", "The CLI is maintained by Ben."}, {"owner", "The API is managed by Sam."},
	{"owner", "The project is led by Ana."}, {"owner", "Alice owns the billing service."}, {"owner", "Ben maintains the CLI."},
	{"owner", "Ana leads the infra team."}, {"owner", "Sam manages the budget."},
	{"use", "I use Vim."}, {"use", "We are using Postgres."}, {"use", "The team uses Jira."}, {"use", "I switched to Helix."},
	{"use", "We migrated to MySQL."}, {"use", "We changed to Yarn."}, {"use", "The team moved to pnpm."},
	{"preference", "I like tea."}, {"preference", "I love Rust."}, {"preference", "I prefer dark mode."}, {"preference", "I enjoy hiking."},
	{"is", "Our default branch is main."}, {"is", "The CI servers are Jenkins."}, {"is", "The CI server was Jenkins."},
	{"is", "The CI servers were Jenkins."},
	{"replaced", "I use Helix instead of Vim."}, {"replaced", "We switched from MySQL to Postgres."},
	{"replaced", "We replaced Jenkins with Buildkite."}, {"replaced", "We swapped Jenkins for Buildkite."},
	{"replaced", "I use Zed rather than Vim."},
	{"marker", "I no longer use Vim."}, {"marker", "I use Helix instead."}, {"marker", "I do not use Vim anymore."},
	{"marker", "I do not use Vim any more."}, {"marker", "I use Helix these days."}, {"marker", "I use Helix nowadays."},
	{"marker", "I use Helix from now on."}, {"marker", "I switched to Helix."}, {"marker", "I am switching to Helix."},
	{"marker", "We migrated to MySQL."}, {"marker", "I moved to Porto."}, {"marker", "We changed to Yarn."},
	{"marker", "We replaced Jenkins with Buildkite."}, {"marker", "I use Helix now."},
	{"additive", "I also use Vim."}, {"additive", "I use Vim too."}, {"additive", "I use Vim as well."},
	{"additive", "I use another editor."}, {"additive", "I additionally use Vim."}, {"additive", "I use Vim in addition."},
	{"additive", "I use a second editor."},
}

// TestPossibleKindsRules: each rule word's statement reads as its kind,
// and the filter allows it; a key word missing from the rules' literals
// fails here, or in TestKeyedReading.
func TestPossibleKindsRules(t *testing.T) {
	for _, c := range ruleStatements {
		r := readStatement(c.text, "user")
		has := false
		for _, cl := range r {
			switch c.kind {
			case "replaced":
				has = has || len(cl.replaced) > 0
			case "marker":
				has = has || cl.marker != ""
			case "additive":
				has = has || cl.additive
			}
		}
		if kind, ok := kindByName()[c.kind]; ok {
			has = r.kinds()&kind != 0
		}
		if !has {
			t.Errorf("%q does not read as %s: the statement tests nothing", c.text, c.kind)
		}
		checkPossibleKinds(t, c.text)
		checkKeyedReading(t, c.text)
	}
}

// checkKeyedReading fails when trying each rule only on clauses holding
// its literal reads text otherwise than trying every rule.
func checkKeyedReading(t *testing.T, text string) {
	t.Helper()
	for _, speaker := range []string{"user", "Ana"} {
		if keyed, full := readStatementKeyed(text, speaker, true), readStatementKeyed(text, speaker, false); !reflect.DeepEqual(keyed, full) {
			t.Errorf("%q reads otherwise with the rules' literals:\n keyed %+v\n full  %+v", text, keyed, full)
		}
	}
}

// TestKeyedReading reads every statement of the corpus both ways.
func TestKeyedReading(t *testing.T) {
	_, all := statementCorpus(t)
	for _, s := range all {
		checkKeyedReading(t, s)
	}
}

// FuzzPossibleKinds runs both checks on any text (go test -fuzz
// PossibleKinds); the seeds are the rules' statements.
func FuzzPossibleKinds(f *testing.F) {
	for _, c := range ruleStatements {
		f.Add(c.text)
		f.Add(strings.ToUpper(c.text))
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkPossibleKinds(t, s)
		checkKeyedReading(t, s)
	})
}

// TestCandidateFilterSameDecision puts every labelled statement, as the
// new fact, against every statement of the corpus as the stored one, said
// before and after it: wherever the filter passes a stored statement
// over, the heuristic's rule and the looser test a model's answer is held
// to both turn it down. The filter must pass over many, or it saves
// nothing.
func TestCandidateFilterSameDecision(t *testing.T) {
	labelled, all := statementCorpus(t)
	// A statement of no clause the rules can read takes part in nothing:
	// only the others are put against the new facts.
	var stored []string
	var theirs []reading
	for _, s := range all {
		if r := readStatement(s, "user"); len(r) > 0 {
			stored, theirs = append(stored, s), append(theirs, r)
		}
	}
	pairs, skipped := 0, 0
	for _, m := range labelled {
		mine := readStatement(m, "user")
		if !mine.claimsSomething() {
			continue
		}
		filter := newCandidateFilter(mine)
		for i, s := range stored {
			for _, later := range []bool{false, true} {
				pairs++
				if filter.admits(s, later) {
					continue
				}
				skipped++
				newer, older := mine, theirs[i]
				if later {
					newer, older = older, newer
				}
				if ok, why := supersedesReading(newer, older); ok {
					t.Errorf("the filter passed over %q (later %v) for %q, which it replaces: %s", s, later, m, why)
				}
				if mayReplace(newer, older) {
					t.Errorf("the filter passed over %q (later %v) for %q, which a model may say it replaces", s, later, m)
				}
			}
		}
	}
	t.Logf("%d pairs, %d passed over unread", pairs, skipped)
	if skipped < pairs/3 {
		t.Errorf("the filter passed over %d of %d pairs: it saves little", skipped, pairs)
	}
}

// TestFoldsToASCII finds every rune the rules' case-insensitive matching
// takes for an ASCII letter: each is either lowercased to it by
// strings.ToLower, as the filter reads text, or in foldsToASCII, whose
// texts are always read.
func TestFoldsToASCII(t *testing.T) {
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < 0x80 && unicode.IsLetter(f) && unicode.ToLower(r) != unicode.ToLower(f) && !strings.ContainsRune(foldsToASCII, r) {
				t.Errorf("%U folds to %q, is lowercased to %q and is not in foldsToASCII", r, f, unicode.ToLower(r))
			}
		}
	}
}

// TestKindsKnown: every slot kind a reading of the corpus makes has its
// own bit (an unknown one would make the filter read everything).
func TestKindsKnown(t *testing.T) {
	_, all := statementCorpus(t)
	seen := map[string]bool{}
	for _, s := range all {
		for _, c := range readStatement(s, "user") {
			for _, cl := range c.claims {
				name, _, _ := strings.Cut(cl.slot, ":")
				seen[name] = true
				if kindOf(cl.slot) == kindOther {
					t.Errorf("%q: slot %q has no kind bit", s, cl.slot)
				}
			}
		}
	}
	for name := range kindByName() {
		if !seen[name] {
			t.Logf("no statement of the corpus claims %q", name)
		}
	}
}

// BenchmarkReadStatement reads the corpus's statements, trying each rule
// only on clauses holding its literal (keyed) and every rule (full), to
// compare in one process (run with -bench ReadStatement): what a
// supersession candidate read anew costs.
func BenchmarkReadStatement(b *testing.B) {
	_, all := statementCorpus(b)
	for _, keyed := range []bool{true, false} {
		b.Run(map[bool]string{true: "keyed", false: "full"}[keyed], func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for _, s := range all {
					readStatementKeyed(s, "user", keyed)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(all))/1000, "µs/statement")
		})
	}
}
