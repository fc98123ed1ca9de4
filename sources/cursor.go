package sources

import (
	"regexp"
	"strings"
	"sync"
)

// cursorText is a Cursor text block after clean-up.
type cursorText struct {
	text        string
	dropped     []string // names of the context tags removed
	placeholder bool     // a bare [REDACTED] placeholder was removed
}

var (
	userQueryRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<user_query>(.*?)</user_query>`) })
	contextTag  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<([a-z_][a-z0-9_-]*)>.*?</([a-z_][a-z0-9_-]*)>`) })
	// A bare placeholder that Cursor leaves where it hid text: alone on the
	// last line(s) or as the whole block.
	trailingRedacted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\n)(?:[ \t]*\[REDACTED\][ \t]*\r?\n?)+\s*$`) })
)

// cleanCursorText unwraps <user_query>, drops the context tags Cursor
// injects around it (<manually_attached_skills>, <attached_files>, …) and
// removes a trailing or standalone bare [REDACTED] placeholder. Text
// without a <user_query> envelope keeps its tags: they may be the user's.
func cleanCursorText(s string) cursorText {
	var c cursorText
	if qs := userQueryRE().FindAllStringSubmatch(s, -1); len(qs) > 0 {
		outside := userQueryRE().ReplaceAllString(s, "")
		for _, t := range contextTag().FindAllStringSubmatch(outside, -1) {
			if t[1] == t[2] {
				c.dropped = append(c.dropped, t[1])
			}
		}
		parts := make([]string, 0, len(qs))
		for _, q := range qs {
			parts = append(parts, strings.TrimSpace(q[1]))
		}
		s = strings.Join(parts, "\n\n")
	}
	if loc := trailingRedacted().FindStringIndex(s); loc != nil {
		s = strings.TrimRight(s[:loc[0]], " \t\r\n")
		c.placeholder = true
	}
	c.text = s
	return c
}
