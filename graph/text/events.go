package text

import (
	"strings"
	"sync"
	"unicode"
)

// eventJoints are the words that join the events of a question about
// their order or the time between them: "the gala or the bake sale",
// "between the move and the new job", "before the race".
var eventJoints = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"or": true, "and": true, "between": true, "before": true, "after": true, "then": true}
})

// orderWords make a question about the order of events or the span
// between them; timeUnits after "how many", "how much" or "how long"
// make one about a span ("how many days passed between …").
var (
	orderWords = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"first": true, "before": true, "after": true, "between": true,
			"earlier": true, "later": true, "sooner": true}
	})
	timeUnits = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"minute": true, "minutes": true, "hour": true, "hours": true, "day": true,
			"days": true, "week": true, "weeks": true, "months": true, "month": true, "year": true, "years": true}
	})
	spanWords = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"many": true, "much": true, "long": true, "ago": true}
	})
)

// Events are the events a question names when it asks for their order or
// the time between them ("which did I do first, the gala or the bake
// sale?", "how many days passed between the move and the new job?"): the
// pieces of the text between its joining words (or, and, between, before,
// after, then) that hold a content word besides the words of order, time
// units and span ("many", "long"), where what comes before "between" only
// frames the question. A question that names fewer than two has none, and neither
// has a text that asks no such question.
func Events(text string) []string {
	words := Tokens(text)
	asks := false
	for i, w := range words {
		if orderWords()[w] {
			asks = true
		}
		if w == "how" && i+2 < len(words) && (words[i+1] == "many" || words[i+1] == "much" || words[i+1] == "long") &&
			(timeUnits()[words[i+2]] || words[i+1] == "long") {
			asks = true
		}
	}
	if !asks {
		return nil
	}
	var events []string
	start := 0
	for _, at := range append(joints(text), []int{len(text), len(text)}) {
		piece := strings.Trim(text[start:at[0]], " \t\n,;:?!.")
		if strings.EqualFold(text[at[0]:at[1]], "between") {
			// what comes before "between" frames the question
			events, piece = nil, ""
		}
		start = at[1]
		named := false
		for _, t := range Terms(piece) {
			if !orderWords()[t] && !timeUnits()[t] && !spanWords()[t] {
				named = true
				break
			}
		}
		if named {
			events = append(events, piece)
		}
	}
	if len(events) < 2 {
		return nil
	}
	return events
}

// joints are the byte spans of text's joining words (eventJoints), in
// order.
func joints(text string) [][]int {
	var out [][]int
	start := -1
	for i, r := range text + " " {
		word := unicode.IsLetter(r) || unicode.IsNumber(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			if eventJoints()[strings.ToLower(text[start:i])] {
				out = append(out, []int{start, i})
			}
			start = -1
		}
	}
	return out
}
