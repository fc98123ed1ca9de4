package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/pipeline"
)

const descForget = `Forget for good: hard-delete facts and the raw conversation they came from. IRREVERSIBLE — nothing ` +
	`forgotten can be brought back, so call it only when the user asks to forget something, and say what went. ` +
	`Name what to forget with fact_ids (as search_knowledge shows them), or with selectors, which combine: before ` +
	`(a date such as 2026-03-01 or an RFC 3339 time: what happened before it), session_id, entity (the facts ` +
	`naming it), matching (the facts a search finds). Set dry_run to see the counts and a sample first. The ` +
	`answer always gives the counts of what was removed. This tool exists only because the store's owner ` +
	`turned it on (retention.agent_forget).`

type (
	forgetIn struct {
		FactIDs   []int64 `json:"fact_ids,omitempty" jsonschema:"facts to forget, by id"`
		Before    string  `json:"before,omitempty" jsonschema:"what happened before this date (2026-03-01) or RFC 3339 time"`
		SessionID string  `json:"session_id,omitempty" jsonschema:"one session's events and the facts they alone support"`
		Entity    string  `json:"entity,omitempty" jsonschema:"the facts that name this entity"`
		Matching  string  `json:"matching,omitempty" jsonschema:"the facts a search for this finds (at most 20)"`
		Reason    string  `json:"reason,omitempty" jsonschema:"why, kept in the tombstone and the mutation log"`
		DryRun    bool    `json:"dry_run,omitempty" jsonschema:"only say what would go"`
	}
	forgetOut struct {
		DryRun      bool           `json:"dry_run"`
		Facts       []int64        `json:"facts"`
		Events      int            `json:"events"`
		Rows        int            `json:"rows"`
		RowsByTable map[string]int `json:"rows_by_table"`
		Tombstones  int            `json:"tombstones"`
		Sample      []string       `json:"sample,omitempty"`
		Message     string         `json:"message"`
	}
)

// addForget offers the forget tool when the store's config turns it on
// (never on a server answering with an error: it has no store).
func (s *Server) addForget() {
	if s.p == nil || !s.p.Config.Retention.AgentForget {
		return
	}
	destructive := true
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "forget", Description: descForget,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive}, OutputSchema: outputSchema[forgetOut]()}, s.forget)
}

func (s *Server) forget(ctx context.Context, _ *mcp.CallToolRequest, in forgetIn) (*mcp.CallToolResult, any, error) {
	sel := pipeline.Selector{Session: strings.TrimSpace(in.SessionID), Entity: strings.TrimSpace(in.Entity), Matching: strings.TrimSpace(in.Matching), Limit: 20}
	if b := strings.TrimSpace(in.Before); b != "" {
		t, err := time.Parse("2006-01-02", b)
		if err != nil {
			if t, err = time.Parse(time.RFC3339, b); err != nil {
				return nil, nil, fieldError("before", "%q is no date; write 2026-03-01 or an RFC 3339 time", b)
			}
		}
		sel.Before = t
	}
	opts := pipeline.ForgetOptions{Actor: "mcp", Reason: in.Reason}
	out := forgetOut{DryRun: in.DryRun, Facts: []int64{}, RowsByTable: map[string]int{}}
	switch {
	case len(in.FactIDs) > 0 && !sel.Empty():
		return nil, nil, fieldError("fact_ids", "pass either fact_ids or selectors (before, session_id, entity, matching), not both")
	case len(in.FactIDs) > 0:
		if in.DryRun {
			out.Facts = in.FactIDs
			out.Message = fmt.Sprintf("dry run: would forget %s; nothing deleted", text.Plural(len(in.FactIDs), "fact"))
			return jsonResultWithText(out.Message, out)
		}
		rep, err := s.p.Forget(ctx, in.FactIDs, opts)
		if err != nil {
			return nil, nil, err
		}
		out.Facts, out.Rows, out.RowsByTable, out.Tombstones = rep.Facts, rep.Rows, rep.RowsBy, rep.Tombstones
	case sel.Empty():
		return nil, nil, fieldError("fact_ids", "name what to forget: fact_ids, or before, session_id, entity or matching")
	case in.DryRun:
		picked, err := s.p.Select(ctx, sel)
		if err != nil {
			return nil, nil, err
		}
		out.Facts, out.Events, out.Sample = picked.Facts, len(picked.Events), picked.Sample
		out.Message = fmt.Sprintf("dry run: %s picks %s and %s; nothing deleted", sel, text.Plural(len(picked.Facts), "fact"), text.Plural(len(picked.Events), "raw event"))
		return jsonResultWithText(out.Message, out)
	default:
		rep, picked, err := s.p.ForgetSelected(ctx, sel, opts)
		if err != nil {
			return nil, nil, err
		}
		out.Facts, out.Events, out.Rows, out.RowsByTable, out.Tombstones = picked.Facts, len(picked.Events), rep.Rows, rep.RowsBy, rep.Tombstones
	}
	out.Message = fmt.Sprintf("forgot %s and %s for good: %s removed; %s stop them being extracted again", text.Plural(len(out.Facts), "fact"), text.Plural(out.Events, "raw event"), text.Plural(out.Rows, "row"), text.Plural(out.Tombstones, "tombstone"))
	return jsonResultWithText(out.Message, out)
}
