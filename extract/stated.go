package extract

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// stampRE matches a numeric date stamp at the start of a text:
// "[2023/05/21]", "2023-05-21:", "[2023-05-21 14:05]", "(2023.05.21)";
// wordStampRE one with the month in words: "[8 May 2023]", "May 8, 2023:".
var (
	stampRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*[\[(]?(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[ T](\d{1,2}):(\d{2}))?[\])]?(?:[\s:,]|$)`)
	})
	wordStampRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*[\[(]?(\d{1,2} [A-Za-z]{3,9},? \d{4}|[A-Za-z]{3,9} \d{1,2},? \d{4})[\])]?(?:[\s:,]|$)`)
	})
)

// wordLayouts are the layouts wordStampRE's dates are read with.
var wordLayouts = []string{"2 January 2006", "2 Jan 2006", "January 2 2006", "Jan 2 2006"}

// StatedDate reads the date stamp a captured text opens with (UTC; a day
// alone is its midnight): a note or a copied chat line dated by its writer
// says when it was said, which is what ranks and ages it, not when it
// was captured. A stamp that names no real day is no date.
func StatedDate(text string) (time.Time, bool) {
	if m := wordStampRE().FindStringSubmatch(text); m != nil {
		d := strings.ReplaceAll(m[1], ",", "")
		for _, l := range wordLayouts {
			if t, err := time.Parse(l, d); err == nil {
				return t, true
			}
		}
		return time.Time{}, false
	}
	m := stampRE().FindStringSubmatch(text)
	if m == nil {
		return time.Time{}, false
	}
	n := make([]int, 5)
	for i, s := range m[1:] {
		if s != "" {
			n[i], _ = strconv.Atoi(s)
		}
	}
	if m[4] != "" && (n[3] > 23 || n[4] > 59) {
		return time.Time{}, false
	}
	t := time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], 0, 0, time.UTC)
	if t.Year() != n[0] || int(t.Month()) != n[1] || t.Day() != n[2] {
		return time.Time{}, false // 2023/02/30 is no day
	}
	return t, true
}
