package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/recollect/recollect/graph/text"
)

// Block renders hits as the exact text a prompt embeds: one line per fact,
// "[fact ID] DATE "CONTENT"", the content quoted as data (see Quote), with a
// marker on superseded history. Only stored values go in, so the same facts
// give the same bytes.
func Block(hits []Hit) string {
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "[fact %d]", h.ID)
		if d := day(h.Time()); d != "" {
			b.WriteString(" " + d)
		}
		b.WriteString(" " + quoted(h.Content))
		if h.Status != "active" && h.SupersededBy != 0 {
			fmt.Fprintf(&b, " (superseded by fact %d)", h.SupersededBy)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Digest is the sha256 of a block's bytes, "sha256:" and hex.
func Digest(block string) string {
	sum := sha256.Sum256([]byte(block))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func day(t string) string {
	if len(t) >= 10 {
		return t[:10]
	}
	return t
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// quoted renders stored text for an agent as one quoted line, whole: data
// that no newline, heading or fence inside it can break out of.
func quoted(s string) string {
	if AddressesModel(s) {
		return strconv.Quote(oneLine(s)) + " " + AddressedNote
	}
	return strconv.Quote(oneLine(s))
}

// ProducerLabel says how a fact was produced, in words: heuristic facts say
// no model was involved.
func ProducerLabel(p string) string {
	switch p {
	case "heuristic":
		return "heuristic (read from the transcript, no model)"
	case "capture":
		return "explicit capture by an agent"
	case "":
		return "unknown producer"
	}
	return "model via " + p
}

// FoundBy summarises the arms that found a hit in words: "keyword only",
// "entity only (…the keyword arm did not find it)", "fused: keyword + entity",
// or "through supersession" when only the fact it replaced matched. A hit
// the keyword arm did not find is never called a keyword match.
func FoundBy(h Hit) string {
	var direct, via []string
	for _, m := range h.MatchedBy {
		switch {
		case m.Arm == ArmDomain:
		case m.Via != 0 && !contains(via, string(m.Arm)):
			via = append(via, string(m.Arm))
		case m.Via == 0 && !contains(direct, string(m.Arm)):
			direct = append(direct, string(m.Arm))
		}
	}
	also := ""
	if len(direct) > 0 && len(via) > 0 {
		also = "; also through supersession"
	}
	switch {
	case len(direct) == 0 && len(via) > 0:
		return "through supersession (" + strings.Join(via, " + ") + " matched the fact it replaced, not this one)"
	case len(direct) == 0 && len(h.MatchedBy) > 0:
		return "domain only"
	case len(direct) == 0:
		return "not matched"
	case len(direct) == 1 && direct[0] == string(ArmContext):
		return "conversation context only (said next to a keyword hit; the query's words are not in it)" + also
	case len(direct) == 1 && direct[0] == string(ArmEntity):
		return "entity only (a named thing in the query matched; the keyword arm did not find it)" + also
	case len(direct) == 1:
		return direct[0] + " only" + also
	}
	return "fused: " + strings.Join(direct, " + ") + also
}

func matchLabel(m Match) string {
	s := fmt.Sprintf("%s #%d", m.Arm, m.Rank)
	if m.Detail != "" {
		s += " (" + m.Detail + ")"
	}
	if m.Via != 0 {
		s += fmt.Sprintf(" via superseded fact %d", m.Via)
	}
	return s
}

// RenderAnswer writes a search answer as text for a person or a model:
// knowledge first, then pending facts and episodes, each labelled for what
// it is. Arms that did not run are never named.
func RenderAnswer(w io.Writer, a Answer) {
	arms := make([]string, len(a.Arms))
	for i, arm := range a.Arms {
		arms[i] = string(arm)
	}
	for _, n := range a.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	switch {
	case len(a.Results) == 0:
		fmt.Fprintf(w, "No knowledge matches %q.\n", oneLine(a.Query))
	case a.Order == string(OrderChronological):
		fmt.Fprintf(w, "Knowledge, %s in time order (arms: %s; digest %s):\n%s", text.Plural(len(a.Results), "fact"), strings.Join(arms, ", "), a.Digest, a.Block)
	default:
		noun := "results"
		if len(a.Results) == 1 {
			noun = "result"
		}
		fmt.Fprintf(w, "Knowledge, %d %s (arms: %s):\n", len(a.Results), noun, strings.Join(arms, ", "))
		for i, h := range a.Results {
			renderHit(w, i+1, h)
		}
	}
	if b := a.Budget; b != nil && b.Skipped == 0 {
		fmt.Fprintf(w, "budget: %s, about %d used; every result fit\n", text.Plural(b.Budget, "token"), b.Used)
	} else if b != nil {
		fmt.Fprintf(w, "budget: %s, about %d used; %d more %s not fit and %s skipped\n", text.Plural(b.Budget, "token"), b.Used, b.Skipped, map[bool]string{true: "result did", false: "results did"}[b.Skipped == 1], map[bool]string{true: "was", false: "were"}[b.Skipped == 1])
	}
	if len(a.Pending) > 0 {
		fmt.Fprintln(w, "Pending (captured, not yet integrated; unverified, keyword match only):")
		for _, p := range a.Pending {
			fmt.Fprintf(w, "  - [pending %d] %s (%s, session %s)\n", p.ID, quoted(p.Content), ProducerLabel(p.Producer), p.SessionID)
		}
	}
	if len(a.Episodes) > 0 {
		why := "no fact matched"
		if len(a.Results) > 0 {
			why = "ranked with the facts for the limit: each holds more of the query's words than the facts it displaced, or takes a place no fact filled"
		}
		fmt.Fprintf(w, "Episodes (raw conversation events, NOT knowledge; shown because %s):\n", why)
		for _, ep := range a.Episodes {
			fmt.Fprintf(w, "  session %s around event %d:\n", ep.SessionID, ep.HitSeq)
			for _, ev := range ep.Events {
				fmt.Fprintf(w, "    #%d %s/%s: %s\n", ev.Seq, ev.Role, ev.EventType, quoted(ev.Content))
			}
		}
	}
}

func renderHit(w io.Writer, n int, h Hit) {
	status := ""
	if h.Status != "active" {
		status = fmt.Sprintf(" (%s", strings.ToUpper(h.Status))
		if h.SupersededBy != 0 {
			status += fmt.Sprintf(" by fact %d", h.SupersededBy)
		}
		status += "; history, not current)"
	}
	fmt.Fprintf(w, "%d. [fact %d]%s %s\n", n, h.ID, status, quoted(h.Content))
	labels := make([]string, len(h.MatchedBy))
	for i, m := range h.MatchedBy {
		labels[i] = matchLabel(m)
	}
	fmt.Fprintf(w, "   found by: %s — %s\n", FoundBy(h), strings.Join(labels, "; "))
	for _, old := range h.Supersedes {
		fmt.Fprintf(w, "   reached through supersession: it replaced [fact %d] %q (history, no longer current)\n", old.ID, oneLine(old.Content))
	}
	renderFactMeta(w, h)
}

func renderFactMeta(w io.Writer, h Hit) {
	dom := h.Domain
	if h.Subdomain != "" {
		dom += "/" + h.Subdomain
	}
	dom = Quote(dom, 80)
	who := "unknown speaker"
	if h.SpeakerRole != "" {
		who = "said by " + h.SpeakerRole
		if h.Speaker != "" {
			who += " (" + h.Speaker + ")"
		}
	}
	kind := ""
	if h.Kind != "" {
		kind = "kind " + h.Kind + " · "
	}
	fmt.Fprintf(w, "   %sdomain %s · confidence %.2f · importance %.2f · %s · %s · %s\n",
		kind, dom, h.Confidence, h.Importance, h.Status, who, ProducerLabel(h.Producer))
	fmt.Fprintf(w, "   cites events %v in session %s", h.EventIDs, orUnknown(strings.Join(h.Sessions, ", "), h.SessionID))
	if h.SaidAt != "" {
		fmt.Fprintf(w, " · said %s", h.SaidAt)
	}
	if h.ValidFrom != "" || h.ValidUntil != "" {
		fmt.Fprintf(w, " · valid %s – %s", orUnknown(h.ValidFrom, "?"), orUnknown(h.ValidUntil, "now"))
	}
	fmt.Fprintln(w)
	if len(h.Entities) > 0 {
		var es []string
		for _, e := range h.Entities {
			s := e.Name + " (" + e.Type
			if e.IsSubject {
				s += ", subject"
			}
			es = append(es, s+")")
		}
		fmt.Fprintf(w, "   entities: %s\n", strings.Join(es, ", "))
	}
}

func orUnknown(s, alt string) string {
	if s != "" {
		return s
	}
	if alt != "" {
		return alt
	}
	return "unknown"
}
