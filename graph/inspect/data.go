// Package inspect shows a store to a person: every layer sampled (raw events
// D, extracted facts I, knowledge K), the entities and the entity graph, as
// terminal tables or as one self-contained HTML page (no network, no CDN;
// its CSS, script and data are inlined, the graph is laid out by its own
// small force simulation).
//
// It only reads. It does not rank (graph does) or report health (pipeline's
// stats does; the front end passes the spend view in).
package inspect

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/store"
)

// Options bound what is read.
type Options struct {
	// Limit caps each layer's sample and the graph's drawn nodes.
	Limit int
	// All draws every node of the graph (the samples stay capped).
	All bool
	// Entity narrows K, the entities and the graph to the facts that
	// mention this entity (matched by name, canonical form or alias).
	Entity string
	// Layers names the terminal tables (Layers) the data is read for:
	// only what they show is read. Empty reads everything, as the page
	// shows it. The counts are always read.
	Layers []string
}

// reads reports whether the layers o names need layer's rows: "d", "i",
// "k", or "graph" (the entities table is drawn from the graph).
func (o Options) reads(layer string) bool {
	if len(o.Layers) == 0 {
		return true
	}
	for _, l := range o.Layers {
		if l == layer || (layer == "graph" && l == "entities") {
			return true
		}
	}
	return false
}

// DefaultLimit is the cap when Options.Limit is not set.
const DefaultLimit = 100

// Data is everything the page and the tables show.
type Data struct {
	DataDir     string         `json:"data_dir"`
	GeneratedAt string         `json:"generated_at"`
	Entity      string         `json:"entity,omitempty"`
	Limit       int            `json:"limit"`
	Counts      Counts         `json:"counts"`
	Events      []EventRow     `json:"events"`
	Extracted   []ExtractedRow `json:"extracted"`
	Facts       []FactRow      `json:"facts"`
	Entities    []EntityRow    `json:"entities"`
	Graph       Graph          `json:"graph"`
	Spend       *Spend         `json:"spend,omitempty"`
}

// Counts are the totals behind the samples.
type Counts struct {
	Events    int `json:"events"`
	Extracted int `json:"extracted"`
	Facts     int `json:"facts"`
	Active    int `json:"active_facts"`
	Entities  int `json:"entities"`
}

// EventRow is one raw event, content shortened.
type EventRow struct {
	Seq       int64  `json:"seq"`
	SessionID string `json:"session_id"`
	Role      string `json:"role"`
	Type      string `json:"type"`
	At        string `json:"at"`
	Bytes     int    `json:"bytes"`
	Content   string `json:"content"`
}

// ExtractedRow is one I-layer fact.
type ExtractedRow struct {
	ID        int64  `json:"id"`
	SessionID string `json:"session_id"`
	Status    string `json:"status"`
	Producer  string `json:"producer"`
	FactID    int64  `json:"fact_id,omitempty"`
	Events    string `json:"events"`
	Content   string `json:"content"`
}

// FactRow is one K-layer fact.
type FactRow struct {
	ID         int64    `json:"id"`
	Status     string   `json:"status"`
	Domain     string   `json:"domain"`
	Kind       string   `json:"kind"`
	Producer   string   `json:"producer"`
	RecordedAt string   `json:"recorded_at"`
	Content    string   `json:"content"`
	Entities   []string `json:"entities"`
}

// EntityRow is one entity with how many active facts mention it.
type EntityRow struct {
	ID    int64  `json:"id"`
	Type  string `json:"type"`
	Name  string `json:"name"`
	Facts int    `json:"facts"`
}

// Graph is entities as nodes and facts as labelled edges. Nodes and Edges
// are everything (the page searches them); Drawn is how many nodes, the
// best connected first, the page draws.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
	Drawn int    `json:"drawn"`
}

// Node is an entity in the graph.
type Node struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	Degree int    `json:"degree"`
}

// Edge is one active fact joining two of the entities it names.
type Edge struct {
	From   int64  `json:"from"`
	To     int64  `json:"to"`
	FactID int64  `json:"fact_id"`
	Label  string `json:"label"`
}

// Spend is the spend view the front end fills from pipeline stats.
type Spend struct {
	Last24h    SpendRow   `json:"last_24h"`
	AllTime    SpendRow   `json:"all_time"`
	ByStage    []SpendRow `json:"by_stage"`
	ByProvider []SpendRow `json:"by_provider"`
	ByModel    []SpendRow `json:"by_model"`
	Budgets    []Budget   `json:"budgets"`
	// BudgetNote explains an empty or unknown budget list.
	BudgetNote string `json:"budget_note,omitempty"`
}

// SpendRow is one group of model calls.
type SpendRow struct {
	Key             string `json:"key"`
	Calls           int    `json:"calls"`
	Failed          int    `json:"failed"`
	InputTokens     int64  `json:"input_tokens"`
	OutputTokens    int64  `json:"output_tokens"`
	UnreportedCalls int    `json:"unreported_calls"`
}

// Budget is one token budget window.
type Budget struct {
	Provider  string `json:"provider"`
	Window    string `json:"window"`
	Cap       int64  `json:"cap"`
	Used      int64  `json:"used"`
	Remaining int64  `json:"remaining"`
	ResetsAt  string `json:"resets_at,omitempty"`
	Note      string `json:"note,omitempty"`
}

// Read collects the data through the store's reader.
func Read(ctx context.Context, r *graph.Reader, opts Options) (Data, error) {
	db := r.Store()
	if opts.Limit <= 0 {
		opts.Limit = DefaultLimit
	}
	d := Data{DataDir: db.Dir, GeneratedAt: store.Now(), Entity: opts.Entity, Limit: opts.Limit,
		Events: []EventRow{}, Extracted: []ExtractedRow{}, Facts: []FactRow{}, Entities: []EntityRow{}}
	var scope []int64 // fact ids in the entity's neighbourhood; nil = all
	if opts.Entity != "" {
		var err error
		if scope, err = entityFacts(ctx, db, opts.Entity); err != nil {
			return d, err
		}
	}
	// The graph joins every active fact to its entities: at 100,000 facts
	// most of a second, which a table of the newest facts does not need.
	for _, step := range []struct {
		layer string
		read  func() error
	}{
		{"", func() error { return readCounts(ctx, db, &d.Counts) }},
		{"d", func() error { return readEvents(ctx, db, opts.Limit, &d) }},
		{"i", func() error { return readExtracted(ctx, db, opts.Limit, &d) }},
		{"k", func() error { return readFacts(ctx, db, opts.Limit, scope, &d) }},
		{"graph", func() error { return readGraph(ctx, db, scope, &d) }},
	} {
		if step.layer != "" && !opts.reads(step.layer) {
			continue
		}
		if err := step.read(); err != nil {
			return d, err
		}
	}
	d.Graph.Drawn = len(d.Graph.Nodes)
	if !opts.All && d.Graph.Drawn > opts.Limit {
		d.Graph.Drawn = opts.Limit
	}
	for i, n := range d.Graph.Nodes {
		if i >= opts.Limit {
			break
		}
		d.Entities = append(d.Entities, EntityRow{ID: n.ID, Type: n.Type, Name: n.Name, Facts: n.Degree})
	}
	return d, nil
}

// ErrNoEntity is returned when --entity names nothing stored.
type ErrNoEntity struct{ Name string }

func (e *ErrNoEntity) Error() string {
	return fmt.Sprintf("no entity named %q; run recollect inspect --layer entities to list them", e.Name)
}

// entityFacts resolves name and returns the ids of the active facts that
// mention it.
func entityFacts(ctx context.Context, db *store.DB, name string) ([]int64, error) {
	fold := strings.ToLower(strings.TrimSpace(name))
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT fe.fact_id FROM fact_entities fe JOIN facts f ON f.id = fe.fact_id AND f.status = 'active'
		WHERE fe.entity_id IN (SELECT id FROM entities WHERE lower(name) = ?1 OR canonical = ?1 OR fold = ?1
			UNION SELECT entity_id FROM entity_aliases WHERE lower(alias) = ?1 OR fold = ?1) ORDER BY fe.fact_id`, fold)
	if err != nil {
		return nil, fmt.Errorf("find entity %q: %w", name, err)
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("find entity %q: %w", name, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find entity %q: %w", name, err)
	}
	if len(ids) == 0 {
		return nil, &ErrNoEntity{Name: name}
	}
	return ids, nil
}

func readCounts(ctx context.Context, db *store.DB, c *Counts) error {
	err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM session_events), (SELECT count(*) FROM session_facts),
		(SELECT count(*) FROM facts), (SELECT count(*) FROM facts WHERE status = 'active'), (SELECT count(*) FROM entities)`).
		Scan(&c.Events, &c.Extracted, &c.Facts, &c.Active, &c.Entities)
	if err != nil {
		return fmt.Errorf("inspect: count layers: %w", err)
	}
	return nil
}

// each runs query and calls fn for every row.
func each(ctx context.Context, db *store.DB, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return fmt.Errorf("inspect: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	return nil
}

// snippet shortens s to n runes on one line.
func snippet(s string, n int) string {
	s = escapeControls(collapseSpaces(s))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := 0
	for range n - 1 {
		_, w := utf8.DecodeRuneInString(s[cut:])
		cut += w
	}
	if !utf8.ValidString(s[:cut]) {
		// A byte that is not UTF-8 becomes U+FFFD, as a rune slice has it.
		return string([]rune(s)[:n-1]) + "…"
	}
	return s[:cut] + "…"
}

// collapseSpaces is strings.Join(strings.Fields(s), " "): every run of
// white space one space, none at either end. A text that has no other
// (most of them) is returned as it is, with nothing allocated.
func collapseSpaces(s string) string {
	prev := true // at the start a space is one too many
	for _, r := range s {
		space := unicode.IsSpace(r)
		if space && (r != ' ' || prev) {
			return strings.Join(strings.Fields(s), " ")
		}
		prev = space
	}
	if prev && s != "" {
		return strings.Join(strings.Fields(s), " ") // a space at the end
	}
	return s
}

// escapeControls writes each control character (an escape sequence from
// a transcript, a bidirectional override) as its escape, so a raw event
// cannot redraw the terminal that shows it.
func escapeControls(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool {
	return unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

func readEvents(ctx context.Context, db *store.DB, limit int, d *Data) error {
	return each(ctx, db, `SELECT seq, session_id, role, event_type, COALESCE(occurred_at, recorded_at), octet_length(content), substr(content, 1, 400)
		FROM session_events ORDER BY seq DESC LIMIT ?`, []any{limit}, func(r *sql.Rows) error {
		var e EventRow
		if err := r.Scan(&e.Seq, &e.SessionID, &e.Role, &e.Type, &e.At, &e.Bytes, &e.Content); err != nil {
			return err
		}
		e.Content = snippet(e.Content, 200)
		d.Events = append(d.Events, e)
		return nil
	})
}

func readExtracted(ctx context.Context, db *store.DB, limit int, d *Data) error {
	return each(ctx, db, `SELECT id, session_id, status, producer, COALESCE(fact_id, 0), event_ids, content
		FROM session_facts ORDER BY id DESC LIMIT ?`, []any{limit}, func(r *sql.Rows) error {
		var e ExtractedRow
		if err := r.Scan(&e.ID, &e.SessionID, &e.Status, &e.Producer, &e.FactID, &e.Events, &e.Content); err != nil {
			return err
		}
		d.Extracted = append(d.Extracted, e)
		return nil
	})
}

func inScope(scope []int64) (string, []any) {
	if scope == nil {
		return "1 = 1", nil
	}
	in, args := store.InList(scope)
	return "f.id IN (" + in + ")", args
}

func readFacts(ctx context.Context, db *store.DB, limit int, scope []int64, d *Data) error {
	where, args := inScope(scope)
	err := each(ctx, db, `SELECT f.id, f.status, f.domain, COALESCE(f.kind, ''), f.producer, f.recorded_at, f.content,
		COALESCE((SELECT `+db.Engine().JoinText("name", "|")+` FROM (SELECT e.name FROM fact_entities fe JOIN entities e ON e.id = fe.entity_id
			WHERE fe.fact_id = f.id ORDER BY fe.is_subject DESC, e.id) n), '')
		FROM facts f WHERE `+where+` ORDER BY f.id DESC LIMIT ?`, append(args, limit), func(r *sql.Rows) error {
		var f FactRow
		var names string
		if err := r.Scan(&f.ID, &f.Status, &f.Domain, &f.Kind, &f.Producer, &f.RecordedAt, &f.Content, &names); err != nil {
			return err
		}
		f.Entities = []string{}
		if names != "" {
			f.Entities = strings.Split(names, "|")
		}
		d.Facts = append(d.Facts, f)
		return nil
	})
	return err
}
