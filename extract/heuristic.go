package extract

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// HeuristicFacts returns the declarative sentences of a user message,
// verbatim. It never rewrites or invents: every returned string is a
// substring of text (up to the whitespace joining a paragraph's lines; an
// invalid UTF-8 byte reads as U+FFFD). Questions, commands, code, pasted
// logs and chatter are skipped.
func HeuristicFacts(text string) []string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	var out []string
	for _, para := range paragraphs(text) {
		for _, s := range sentences(para) {
			if isDeclarative(s) {
				out = append(out, s)
			}
		}
	}
	return out
}

var (
	fenceRe    = regexp.MustCompile("(?s)```.*?(```|$)")
	inlineCode = regexp.MustCompile("`[^`]*`")
	logLineRe  = regexp.MustCompile(`(?i)^\s*(\d{4}-\d{2}-\d{2}[ T]\d|\[\d|(error|warn|info|debug|trace|fatal|panic)[:\]]|at \S+\(|\s*File "|Traceback|goroutine \d|\$ |> |# |[-*+] \[[ x]\])`)
	codeLineRe = regexp.MustCompile(`[{};]\s*$|^\s*(func|def|class|import|package|return|const|let|var|if|for|while|public|private|#include|SELECT|INSERT|UPDATE|DELETE)\b|=>|:=|==|!=|&&|\|\||</?[a-z]+[^>]*>`)
)

// paragraphs drops code blocks and code- or log-looking lines, and splits the
// rest into blocks of prose.
func paragraphs(text string) []string {
	text = fenceRe.ReplaceAllString(text, "\n\n")
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || logLineRe.MatchString(line) || codeLineRe.MatchString(trimmed) || strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			flush()
			continue
		}
		cur = append(cur, trimmed)
	}
	flush()
	return paras
}

// sentences splits prose on terminal punctuation followed by a space and a
// capital or digit, keeping the punctuation with its sentence.
func sentences(p string) []string {
	var out []string
	start := 0
	runes := []rune(p)
	for i, r := range runes {
		if r != '.' && r != '!' && r != '?' {
			continue
		}
		if i+1 < len(runes) && !unicode.IsSpace(runes[i+1]) {
			continue
		}
		// Do not split after common abbreviations and initials.
		word := lastWord(string(runes[start : i+1]))
		if abbreviations[strings.ToLower(word)] || (utf8.RuneCountInString(word) == 2 && unicode.IsUpper([]rune(word)[0])) {
			continue
		}
		out = append(out, strings.TrimSpace(string(runes[start:i+1])))
		start = i + 1
	}
	if rest := strings.TrimSpace(string(runes[start:])); rest != "" {
		out = append(out, rest)
	}
	return out
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

var abbreviations = map[string]bool{"e.g.": true, "i.e.": true, "etc.": true, "mr.": true, "mrs.": true, "ms.": true, "dr.": true, "vs.": true, "st.": true, "jr.": true, "inc.": true, "co.": true}

// Words that open a request rather than a statement.
var imperative = map[string]bool{
	"add": true, "build": true, "change": true, "check": true, "create": true, "delete": true, "do": true,
	"explain": true, "find": true, "fix": true, "give": true, "help": true, "implement": true, "install": true,
	"let's": true, "lets": true, "list": true, "look": true, "make": true, "move": true, "open": true, "please": true,
	"refactor": true, "remove": true, "rename": true, "run": true, "show": true, "start": true, "stop": true,
	"tell": true, "test": true, "try": true, "update": true, "use": true, "write": true, "go": true, "read": true,
	"can": true, "could": true, "would": true, "will": true, "should": true, "shall": true, "may": true,
	"what": true, "why": true, "how": true, "when": true, "where": true, "who": true, "which": true, "is": true,
	"are": true, "does": true, "did": true, "don't": true, "never": true, "always": true, "keep": true, "ensure": true,
	"set": true, "put": true, "push": true, "commit": true, "merge": true, "revert": true, "debug": true, "review": true,
}

// Greetings, thanks and acknowledgements.
var chatter = map[string]bool{
	"hi": true, "hello": true, "hey": true, "thanks": true, "thank": true, "ok": true, "okay": true, "yes": true,
	"no": true, "sure": true, "great": true, "cool": true, "nice": true, "perfect": true, "lgtm": true, "yep": true,
	"nope": true, "good": true, "awesome": true, "wow": true, "oops": true, "hmm": true,
}

// Verbs and auxiliaries that make a clause a statement about the world.
var stative = regexp.MustCompile(`(?i)\b(am|is|are|was|were|be|been|has|have|had|prefer|prefers|preferred|like|likes|love|loves|hate|hates|use|uses|used|live|lives|lived|work|works|worked|moved|own|owns|need|needs|want|wants|lead|leads|leading|started|joined|left|switched|speak|speaks|study|studies|believe|think|know|call|called|named|born|allergic|based|run|runs|manage|manages|maintain|maintains|deploy|deploys|deployed|'m|'re|'s|'ve)\b`)

func isDeclarative(s string) bool {
	s = strings.TrimSpace(inlineCode.ReplaceAllString(s, "x"))
	if s == "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, ":") {
		return false
	}
	words := strings.Fields(s)
	if len(words) < 4 || len(words) > 80 {
		return false
	}
	first := strings.ToLower(strings.Trim(words[0], ",.!;:\"'()"))
	if imperative[first] || chatter[first] {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
		return false
	}
	// Mostly letters: pasted paths, hashes and tables are not statements.
	letters, total := 0, 0
	for _, r := range s {
		if unicode.IsSpace(r) {
			continue
		}
		total++
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if total == 0 || float64(letters)/float64(total) < 0.7 {
		return false
	}
	return stative.MatchString(s)
}
