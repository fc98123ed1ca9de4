package model

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/recollect/recollect/store"
)

// HeuristicFacts returns the durable statements of a user message,
// verbatim: preferences, conventions, decisions with their reasons, facts
// about the project, the environment or people, ownership and constraints.
// It never rewrites or invents: every returned string is a substring of
// text (up to the whitespace joining a paragraph's lines; an invalid UTF-8
// byte reads as U+FFFD). Questions, commands and requests, plans,
// transient state, chatter, pasted output, code, agent-harness envelopes,
// lists cut mid-way and text that addresses the model or the system are
// skipped (the Reason constants name each rule).
func HeuristicFacts(text string) []string {
	if PromptTemplate(text) {
		return nil
	}
	var out []string
	for _, u := range units(text) {
		if keep, _ := judge(u); keep {
			out = append(out, u.statement())
		}
	}
	return out
}

// HeuristicReads reports whether the heuristic reads ev: text messages
// with role user. The agent's own text — narration, plans, reports, and
// the prompts a parent agent writes for a subagent (role assistant) — and
// tool output are never read as the user's word: on the labelled corpus,
// reading the agent's text too cut precision from 1.00 to below 0.2.
func HeuristicReads(ev store.Event) bool {
	return ev.Role == "user" && ev.EventType == "message" && ev.ContentType == "text"
}

// unitKind says what a piece of a message looks like before its words are
// judged.
type unitKind int

const (
	kindSentence unitKind = iota // a sentence of prose
	kindItem                     // a list item
	kindHeading                  // a markdown heading
	kindTable                    // a table row
	kindCode                     // a fenced or indented block, or a line of code
	kindOutput                   // a line of pasted output (log, trace, prompt)
	kindHarness                  // an agent harness envelope (<command-name>, <bash-stdout>, …)
)

// unit is one candidate the heuristic judges: a sentence, a list item, or a
// block it skips whole.
type unit struct {
	Text string
	Kind unitKind
}

// statement is the unit's words without a list marker.
func (u unit) statement() string {
	if u.Kind == kindItem {
		return strings.TrimSpace(itemMarker().ReplaceAllString(u.Text, ""))
	}
	return u.Text
}

var (
	fenceRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?s)```.*?(```|$)") })
	// Envelopes the agent harness wraps around what it injects into a user
	// turn: slash commands, shell escapes and their output, background task
	// notices, reminders.
	// The harness's own tags may run to the end of a cut message; words that
	// are also HTML elements (summary) count only with their closing tag.
	harnessRe = sync.OnceValue(func() *regexp.Regexp {
		var alts []string
		for _, t := range []string{"command-name", "command-message", "command-args", "command-contents", "local-command-stdout",
			"local-command-stderr", "local-command-caveat", "bash-input", "bash-stdout", "bash-stderr", "task-notification",
			"system-reminder", "user-prompt-submit-hook", "persisted-output"} {
			alts = append(alts, "<"+t+`>.*?(</`+t+">|$)")
		}
		for _, t := range []string{"analysis", "summary", "example"} {
			alts = append(alts, "<"+t+`>.*?</`+t+">")
		}
		return regexp.MustCompile("(?s)" + strings.Join(alts, "|"))
	})

	// A whole line in brackets is a harness notice ("[Request interrupted
	// by user]"); a leading "[Image #1]" is an attachment marker.
	noticeLineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[[^\]]*\]\s*$`) })
	attachmentRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*\[(Image|Pasted text|File) #?\d*[^\]]*\]\s*)+`) })
	itemMarker   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([-*+•]|\d{1,3}[.)])\s+(\[[ xX]\]\s+)?`) })
	headingRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*#{1,6}\s`) })
	tableRe      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\|.*\|\s*$|^\s*[-:|]{3,}\s*$`) })
	outputLineRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*(\S+@[\w.-]+:\S*\s*[$#%] |\(\S+\)\s+\S*[$#%>] |ps [a-z]:\\|[a-z]:\\\S*>|E {2,}\S|=+ .+ =+$|(failed|passed|error|skipped|xfail|xpass)\s+\S+::|\S+::\S+.*\b(passed|failed|error)\b|.*\[\s*\d+%\]$|\d{4}-\d{2}-\d{2}[ T]\d|\[\d|(error|warn|warning|info|debug|trace|fatal|panic)(\[[^\]]*\])?[:\]]|at \S+\(|\s*File "|Traceback|goroutine \d|\$ |> |-->|\d+ \||[|^]+\s*$|(---|\+\+\+|@@) |[+-][^\s+-]|diff --git|index [0-9a-f]+\.\.|on branch |\S+:\d+(:\d+)?:? )`)
	})
	codeLineRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[{};]\s*$|^\s*(//|/\*|#\[|#!)|^\s*(func|def|class|import|package|return|const|let|var|if|for|while|public|private|#include|SELECT|INSERT|UPDATE|DELETE)\b|=>|:=|==|!=|&&|\|\||</?[a-z]+[^>]*>`)
	})
	inlineCodeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`[^`]*`") })
)

// columnGapRe finds a gap of three or more spaces between words: pasted
// columns (a listing, a table printed by a tool), not prose.
var columnGapRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\S {3,}\S`) })

// promptTemplateRe matches the marks of a prompt template an agent
// harness expands into the user's message (a slash command or custom
// prompt): YAML front matter with a description, an $ARGUMENTS or
// {{placeholder}} slot, or a "User input:" block.
var promptTemplateRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)\A\s*---\s*\n[a-z_-]+:.*?\n---\s*\n|\$ARGUMENTS\b|\{\{\s*\w+\s*\}\}|(?m)^\s*(user input|arguments):\s*$`)
})

// PromptTemplate reports whether text is a prompt template an agent
// harness expanded into a user message (spec-kit's and other slash
// commands, Codex custom prompts), marked as a template. Its
// instructions are the template author's, never the user's word.
func PromptTemplate(text string) bool {
	return promptTemplateRe().MatchString(text)
}

// indentedBlock reports whether a line is indented as markdown code is.
func indentedBlock(line string) bool {
	return strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t")
}

// units splits a message into the candidates the heuristic judges. Fenced
// code and harness envelopes become one unit each; every other line is a
// list item, a heading, a table row, code, pasted output, or prose; prose
// lines of one paragraph are joined and split into sentences.
func units(text string) []unit {
	text = strings.ToValidUTF8(text, "\uFFFD")
	var out []unit
	text = harnessRe().ReplaceAllStringFunc(text, func(m string) string {
		out = append(out, unit{Text: m, Kind: kindHarness})
		return "\n\n"
	})
	text = fenceRe().ReplaceAllStringFunc(text, func(m string) string {
		out = append(out, unit{Text: m, Kind: kindCode})
		return "\n\n"
	})
	var para []string
	flush := func() {
		if len(para) > 0 {
			for _, s := range sentences(strings.Join(para, " ")) {
				out = append(out, unit{Text: s, Kind: kindSentence})
			}
			para = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		var kind unitKind
		switch {
		case trimmed == "":
			flush()
			continue
		case noticeLineRe().MatchString(line):
			kind = kindHarness
		case indentedBlock(line) && !itemMarker().MatchString(line):
			kind = kindCode
		case headingRe().MatchString(line):
			kind = kindHeading
		case tableRe().MatchString(line) || strings.Count(line, "\t") >= 2 || len(columnGapRe().FindAllStringIndex(trimmed, -1)) >= 2:
			kind = kindTable
		case outputLineRe().MatchString(line):
			kind = kindOutput
		case itemMarker().MatchString(line):
			kind = kindItem
		case codeLineRe().MatchString(trimmed):
			kind = kindCode
		default:
			if loc := attachmentRe().FindStringIndex(trimmed); loc != nil {
				trimmed = strings.TrimSpace(trimmed[loc[1]:])
				if trimmed == "" {
					continue
				}
			}
			para = append(para, trimmed)
			continue
		}
		flush()
		out = append(out, unit{Text: trimmed, Kind: kind})
	}
	flush()
	return out
}

// sentences splits prose on terminal punctuation followed by a space,
// keeping the punctuation with its sentence.
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
		// Nothing ends inside an inline code span.
		if strings.Count(string(runes[start:i+1]), "`")%2 == 1 {
			continue
		}
		// An ellipsis that runs on into a lowercase word ends nothing.
		if r == '.' && i >= 2 && runes[i-1] == '.' && runes[i-2] == '.' && nextIsLower(runes[i+1:]) {
			continue
		}
		// Do not split after common abbreviations and initials.
		word := lastWord(string(runes[start : i+1]))
		if abbreviations()[strings.ToLower(word)] || (utf8.RuneCountInString(word) == 2 && unicode.IsUpper([]rune(word)[0])) {
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

// nextIsLower reports whether the first letter after leading spaces is
// lowercase.
func nextIsLower(rs []rune) bool {
	for _, r := range rs {
		if !unicode.IsSpace(r) {
			return unicode.IsLower(r)
		}
	}
	return false
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

var abbreviations = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"e.g.": true, "i.e.": true, "etc.": true, "mr.": true, "mrs.": true, "ms.": true, "dr.": true, "vs.": true, "st.": true, "jr.": true, "inc.": true, "co.": true}
})
