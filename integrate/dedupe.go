package integrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/recollect/recollect/graph/text"
)

// querier reads: a *store.Tx or a *store.DB.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// NearThreshold is the token overlap (Jaccard over content words) from which
// two facts are near duplicates that the reconcile stage looks at.
const NearThreshold = 0.6

var stopwords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"a": true, "an": true, "the": true, "and": true, "or": true, "of": true, "to": true, "in": true, "on": true,
		"at": true, "for": true, "with": true, "by": true, "from": true, "is": true, "am": true, "are": true, "was": true,
		"were": true, "be": true, "been": true, "i": true, "my": true, "me": true, "we": true, "our": true, "it": true,
		"its": true, "this": true, "that": true, "user": true, "user's": true, "s": true, "m": true, "really": true,
		"very": true, "also": true, "just": true,
	}
})

var negations = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"not": true, "no": true, "never": true, "don": true, "doesn": true, "isn": true, "t": true, "longer": true, "nor": true}
})

// contentWords are a fact's words without stop words.
func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, t := range text.Terms(s) {
		if !stopwords()[t] {
			out[t] = true
		}
	}
	return out
}

func negated(s string) bool {
	for _, t := range text.Terms(s) {
		if negations()[t] {
			return true
		}
	}
	return false
}

// Overlap is the Jaccard similarity of two facts' content words.
func Overlap(a, b string) float64 {
	return jaccard(contentWords(a), contentWords(b))
}

// jaccard is the Jaccard similarity of two word sets.
func jaccard(wa, wb map[string]bool) float64 {
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(wa)+len(wb)-inter)
}

// candidate is a stored fact offered to a stage, with its overlap score.
type candidate struct {
	ID      int64
	Content string
	SaidAt  string
	Status  string
	Score   float64
}

// activeByDigest finds the active fact with this normalised digest.
func activeByDigest(ctx context.Context, q querier, digest string) (int64, bool, error) {
	var id int64
	err := q.QueryRowContext(ctx, `SELECT id FROM facts WHERE digest = ? AND status = 'active' ORDER BY id LIMIT 1`, digest).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("look up duplicate: %w", err)
	}
	return id, true, nil
}

// nearDuplicates lists active facts of the domain whose content words
// overlap content's by at least NearThreshold, best first, at most five.
// The candidates come from the signature index (signatures.go), so the
// cost does not grow with the store.
func nearDuplicates(ctx context.Context, q querier, content, domain string) ([]candidate, error) {
	words := contentWords(content) // split and stemmed once for the lookup and the overlaps
	cands, err := signatureCandidates(ctx, q, words, domain)
	if err != nil {
		return nil, err
	}
	return bestNear(words, cands), nil
}

const reconcileSystem = `You keep a user's memory free of duplicates. Given a new fact and stored facts that resemble it, answer "merge" with the stored fact's id when the new fact says the same thing, "noop" with the id when the stored fact already covers it and the new one adds nothing, or "add" when it says something the stored facts do not. Answer only with the JSON object.`

const reconcileSchema = `{"type":"object","properties":{"action":{"type":"string","enum":["add","noop","merge"]},"id":{"type":"string","description":"the stored fact's id for noop or merge"},"reason":{"type":"string"}},"required":["action","id","reason"],"additionalProperties":false}`

// reconcile decides what a near-duplicate fact is: the reconcile stage's
// answer, else the heuristic, which merges only when both facts hold the
// same content words with the same polarity.
func (in *Integrator) reconcile(ctx context.Context, content string, near []candidate, rep *Report) (act action, target int64, reason, actor string, err error) {
	var ans struct {
		Action string `json:"action"`
		ID     string `json:"id"`
		Reason string `json:"reason"`
	}
	var b strings.Builder
	fmt.Fprintf(&b, "New fact: %s\n\nStored facts:\n", content)
	offered := map[string]int64{}
	for _, c := range near {
		fmt.Fprintf(&b, "- id %d: %s\n", c.ID, c.Content)
		offered[strconv.FormatInt(c.ID, 10)] = c.ID
	}
	actor, how, err := in.ask(ctx, stageCall{stage: "reconcile", system: reconcileSystem, prompt: b.String(),
		schemaName: "reconcile", schema: reconcileSchema, out: &ans, check: func() error {
			switch ans.Action {
			case "add":
				return nil
			case "noop", "merge":
				if _, ok := offered[strings.TrimSpace(ans.ID)]; !ok {
					return fmt.Errorf("%s into id %q, which was not offered", ans.Action, ans.ID)
				}
				return nil
			}
			return fmt.Errorf("unknown action %q", ans.Action)
		}}, rep)
	if err != nil {
		return actAdd, 0, "", "", err
	}
	switch how {
	case failed:
		return actAdd, 0, "reconcile failed; kept as a new fact", in.actor(), nil
	case byModel:
		reason = "reconcile: " + strings.TrimSpace(ans.Reason)
		switch ans.Action {
		case "merge":
			return actMerge, offered[strings.TrimSpace(ans.ID)], reason, actor, nil
		case "noop":
			return actNoop, offered[strings.TrimSpace(ans.ID)], reason, actor, nil
		}
		return actAdd, 0, reason, actor, nil
	}
	best := near[0]
	if best.Score == 1 && negated(best.Content) == negated(content) {
		return actMerge, best.ID, "same content words as the stored fact", in.actor(), nil
	}
	return actAdd, 0, fmt.Sprintf("near duplicate of fact %d (overlap %.2f) but not the same words; kept both", best.ID, best.Score), in.actor(), nil
}

// SignatureWords are the words of content a near duplicate must share at
// least one of (see pigeonholeWords); exported for benchmarks that time
// lookups by them.
func SignatureWords(content string) []string { return pigeonholeWords(content) }

// pigeonholeWords is the fewest of content's words a near duplicate must
// contain at least one of: overlap ≥ NearThreshold needs at least k of the
// n content words, so any n-k+1 of them will do. The longest are taken, as
// long words are rarer and keep the keyword match small.
func pigeonholeWords(content string) []string { return pigeonholeOf(contentWords(content)) }

// pigeonholeOf is pigeonholeWords of a fact's content words.
func pigeonholeOf(set map[string]bool) []string {
	words := make([]string, 0, len(set))
	for w := range set {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if len(words[i]) != len(words[j]) {
			return len(words[i]) > len(words[j])
		}
		return words[i] < words[j]
	})
	if len(words) == 0 {
		return nil // "I am.": nothing to share
	}
	k := int(math.Ceil(NearThreshold * float64(len(words))))
	return words[:len(words)-k+1]
}
