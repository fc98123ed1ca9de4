package inspect

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/recollect/recollect/graph/text"
)

// Layers are the terminal tables PrintLayer knows, in the order "all"
// prints them. "health" is pipeline's stats and printed by the front end.
var Layers = []string{"d", "i", "k", "entities", "graph"}

// PrintLayer writes one layer of d as a table, newest first, at most
// d.Limit rows.
func PrintLayer(w io.Writer, d Data, layer string) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	switch layer {
	case "d":
		fmt.Fprintf(w, "D — raw events (newest %d of %d)\n", len(d.Events), d.Counts.Events)
		fmt.Fprintln(tw, "SEQ\tSESSION\tROLE\tTYPE\tAT\tBYTES\tCONTENT")
		for _, e := range d.Events {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\n", e.Seq, snippet(e.SessionID, 20), e.Role, e.Type, shortTime(e.At), e.Bytes, snippet(e.Content, 70))
		}
	case "i":
		fmt.Fprintf(w, "I — extracted facts (newest %d of %d)\n", len(d.Extracted), d.Counts.Extracted)
		fmt.Fprintln(tw, "ID\tSESSION\tSTATUS\tPRODUCER\tFACT\tEVENTS\tCONTENT")
		for _, e := range d.Extracted {
			fact := ""
			if e.FactID != 0 {
				fact = fmt.Sprint(e.FactID)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, snippet(e.SessionID, 20), e.Status, e.Producer, fact, snippet(e.Events, 16), snippet(e.Content, 70))
		}
	case "k":
		scope := ""
		if d.Entity != "" {
			scope = " mentioning " + d.Entity
		}
		fmt.Fprintf(w, "K — knowledge%s (newest %d; %s, %d active)\n", scope, len(d.Facts), text.Plural(d.Counts.Facts, "fact"), d.Counts.Active)
		fmt.Fprintln(tw, "ID\tSTATUS\tKIND\tDOMAIN\tPRODUCER\tCONTENT\tENTITIES")
		for _, f := range d.Facts {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", f.ID, f.Status, orDash(f.Kind), f.Domain, f.Producer, snippet(f.Content, 70), snippet(strings.Join(f.Entities, ", "), 40))
		}
	case "entities":
		fmt.Fprintf(w, "entities (best connected %d of %d)\n", len(d.Entities), len(d.Graph.Nodes))
		fmt.Fprintln(tw, "ID\tTYPE\tNAME\tFACTS")
		for _, e := range d.Entities {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d\n", e.ID, e.Type, e.Name, e.Facts)
		}
	case "graph":
		printGraph(w, tw, d)
	default:
		return fmt.Errorf("unknown layer %q; use health, %s or all", layer, strings.Join(Layers, ", "))
	}
	return tw.Flush()
}

func printGraph(w io.Writer, tw *tabwriter.Writer, d Data) {
	names := map[int64]string{}
	for _, n := range d.Graph.Nodes {
		names[n.ID] = n.Name
	}
	edges := d.Graph.Edges
	// Newest first: facts are numbered in the order they were integrated.
	shown := 0
	fmt.Fprintf(w, "graph — %d entities, %d fact edges (newest %d)\n", len(d.Graph.Nodes), len(edges), min(d.Limit, len(edges)))
	fmt.Fprintln(tw, "FROM\tTO\tFACT\tSAYS")
	for i := len(edges) - 1; i >= 0 && shown < d.Limit; i-- {
		e := edges[i]
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", names[e.From], names[e.To], e.FactID, snippet(e.Label, 70))
		shown++
	}
}

// shortTime trims a store time to the minute.
func shortTime(s string) string {
	if len(s) >= 16 {
		return strings.Replace(s[:16], "T", " ", 1)
	}
	return s
}

// orDash shows an unknown value as "-".
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
