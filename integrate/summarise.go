package integrate

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
)

// MaxOpenThreads bounds the open threads a summary carries.
const MaxOpenThreads = 5

// Summary is the rolling summary the briefing reads.
type Summary struct {
	ID          int64    `json:"id"`
	Summary     string   `json:"summary"`
	OpenThreads []string `json:"open_threads"`
	CreatedAt   string   `json:"created_at"`
}

// LatestSummary reads the newest rolling summary; ok is false when no run
// has written one.
func LatestSummary(ctx context.Context, db *store.DB) (Summary, bool, error) {
	var s Summary
	var threads string
	err := db.QueryRowContext(ctx, `SELECT id, summary, open_threads, created_at FROM summaries ORDER BY id DESC LIMIT 1`).
		Scan(&s.ID, &s.Summary, &threads, &s.CreatedAt)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return s, false, nil
		}
		return s, false, fmt.Errorf("read summary: %w", err)
	}
	if err := json.Unmarshal([]byte(threads), &s.OpenThreads); err != nil {
		return s, false, fmt.Errorf("read summary %d: open threads: %w", s.ID, err)
	}
	return s, true, nil
}

// openLoop finds statements of unfinished business.
var openLoop = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(todo|need to|needs to|plan to|planning to|going to|waiting for|waiting on|blocked|follow up|next step|not yet|haven't yet)\b`)
})

// material is what a summary is made of, all read from the store.
type material struct {
	active, domains int
	newest          []string
	conflicts       []string
	loops           []string
}

func (in *Integrator) gather(ctx context.Context) (material, error) {
	var m material
	// The domains are counted by stepping from one to the next on the
	// status index (a loose index scan), where count(DISTINCT domain)
	// would read every active fact a second time. The active facts are
	// the count the store keeps (fact_counts, summed: PostgreSQL's writers
	// add rows beside each other's), where counting them would read the
	// status index whole.
	if err := in.DB.QueryRowContext(ctx, `WITH RECURSIVE d(domain) AS (
			SELECT min(domain) FROM facts WHERE status = 'active'
			UNION ALL
			SELECT (SELECT min(domain) FROM facts WHERE status = 'active' AND domain > d.domain) FROM d WHERE d.domain IS NOT NULL)
		SELECT (SELECT CAST(COALESCE(sum(n), 0) AS BIGINT) FROM fact_counts WHERE status = 'active'), count(domain) FROM d`).Scan(&m.active, &m.domains); err != nil {
		return m, fmt.Errorf("summarise: %w", err)
	}
	list := func(q string, n int, format func(cols []string) string) ([]string, error) {
		rows, err := in.DB.QueryContext(ctx, q, n)
		if err != nil {
			return nil, fmt.Errorf("summarise: %w", err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			cols := make([]string, 3)
			ptrs := []any{&cols[0], &cols[1], &cols[2]}
			if err := rows.Scan(ptrs...); err != nil {
				return nil, fmt.Errorf("summarise: %w", err)
			}
			out = append(out, format(cols))
		}
		return out, rows.Err()
	}
	var err error
	quote := func(c []string) string { return c[0] }
	// The newest facts by id, the order they were recorded in, walked
	// backwards from the key: this reads as many rows as it returns (and
	// the superseded ones between). Ordering by recorded_at, which no index
	// holds, sorted every active fact (1.5 s a run at 1M facts), and so did
	// the status index, which holds them all: "status || ''" keeps SQLite
	// off it.
	const newest = `SELECT content, '', '' FROM facts WHERE status || '' = 'active' ORDER BY id DESC LIMIT ?`
	if m.newest, err = list(newest, 5, quote); err != nil {
		return m, err
	}
	if m.conflicts, err = list(`SELECT f.content, o.content, t.content FROM conflicts c
		JOIN facts f ON f.id = c.fact_id JOIN facts o ON o.id = c.other_id JOIN facts t ON t.id = c.target_id
		WHERE c.resolved_at IS NULL ORDER BY c.id DESC LIMIT ?`, MaxOpenThreads, func(c []string) string {
		return fmt.Sprintf("Unresolved: %q and %q both replace %q", c[0], c[1], c[2])
	}); err != nil {
		return m, err
	}
	loops, err := list(newest, 200, quote)
	if err != nil {
		return m, err
	}
	for _, l := range loops {
		if openLoop().MatchString(l) {
			m.loops = append(m.loops, l)
		}
	}
	return m, nil
}

const summariseSystem = `You write the short briefing a coding agent reads before it starts working with the user: what the last consolidation changed, in two to four plain sentences, and at most five open threads (unfinished business, undecided questions). Use only the material given; invent nothing. Answer only with the JSON object.`

const summariseSchema = `{"type":"object","properties":{"summary":{"type":"string"},"open_threads":{"type":"array","items":{"type":"string"},"maxItems":5}},"required":["summary","open_threads"],"additionalProperties":false}`

// summarise writes the rolling summary of this run and the open threads:
// unresolved conflicts first, then the summarise stage's threads, else
// the newest statements of unfinished business.
func (in *Integrator) summarise(ctx context.Context, rep *Report) error {
	m, err := in.gather(ctx)
	if err != nil {
		return err
	}
	run := fmt.Sprintf("Last consolidation %s: %s taken in: %d new, %d merged into known facts, %d already known, %d superseded and %s.",
		store.FormatTime(in.now())[:16], text.Plural(rep.Claimed, "fact"), rep.Integrated, rep.Merged, rep.Noop, rep.Superseded, text.Plural(rep.Conflicts, "conflict"))
	heur := fmt.Sprintf("%s The store holds %s in %s.", run, text.Plural(m.active, "active fact"), text.Plural(m.domains, "domain"))
	if len(m.newest) > 0 {
		heur += " Newest: " + quoteJoin(m.newest) + "."
	}
	threads := append([]string{}, m.conflicts...)
	var ans struct {
		Summary     string   `json:"summary"`
		OpenThreads []string `json:"open_threads"`
	}
	prompt := fmt.Sprintf("%s\nStore: %s in %s.\nNewest facts:\n%s\nConflicts:\n%s\nUnfinished business:\n%s",
		run, text.Plural(m.active, "active fact"), text.Plural(m.domains, "domain"), bullets(m.newest), bullets(m.conflicts), bullets(first(m.loops, 10)))
	_, how, err := in.ask(ctx, stageCall{stage: "summarise", system: summariseSystem, prompt: prompt,
		schemaName: "summary", schema: summariseSchema, out: &ans, check: func() error {
			if s := strings.TrimSpace(ans.Summary); s == "" || len(s) > 2000 {
				return fmt.Errorf("summary is empty or longer than 2000 bytes")
			}
			return nil
		}}, rep)
	if err != nil {
		return err
	}
	summary := heur
	more := m.loops
	if how == byModel {
		summary, more = run+" "+strings.TrimSpace(ans.Summary), ans.OpenThreads
	}
	for _, t := range more {
		if t = strings.TrimSpace(t); t != "" && len(threads) < MaxOpenThreads && !containsStr(threads, t) {
			threads = append(threads, truncate(t, 300))
		}
	}
	threads = first(threads, MaxOpenThreads)
	if threads == nil {
		threads = []string{}
	}
	data, _ := json.Marshal(threads)
	if _, err := in.DB.ExecContext(ctx, `INSERT INTO summaries(summary, open_threads, created_at) VALUES (?,?,?)`,
		summary, string(data), store.FormatTime(in.now())); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	rep.Summary = summary
	return nil
}

func quoteJoin(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", truncate(x, 160))
	}
	return strings.Join(q, "; ")
}

func bullets(xs []string) string {
	if len(xs) == 0 {
		return "(none)\n"
	}
	var b strings.Builder
	for _, x := range xs {
		b.WriteString("- " + x + "\n")
	}
	return b.String()
}

func first(xs []string, n int) []string {
	if len(xs) > n {
		return xs[:n]
	}
	return xs
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
