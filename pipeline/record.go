package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/recollect/recollect/hooks/payload"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store"
)

// RecordResult says what record wrote.
type RecordResult struct {
	Seqs []int64 `json:"seqs"`
	// Duplicate is true when every event was already stored (a re-sent
	// hook payload), so nothing was written.
	Duplicate bool `json:"duplicate"`
}

// Record writes events directly, without a daemon, in one transaction.
// Every stored field passes the same redactor as copied transcript lines
// (record, hook payloads, the log_event tool all come through here), and
// what it replaced is counted with the rows that were written.
func (p *Pipeline) Record(ctx context.Context, evs []store.Event) (RecordResult, error) {
	res := RecordResult{Seqs: []int64{}, Duplicate: true}
	for i := range evs {
		if err := evs[i].Validate(); err != nil {
			return res, err
		}
	}
	red, err := p.redactor()
	if err != nil {
		return res, err
	}
	counts := make([]map[string]int64, len(evs))
	for i := range evs {
		counts[i] = map[string]int64{}
		red.RedactEvent(&evs[i], counts[i])
	}
	if err := p.EnsureRoom(ctx); err != nil {
		return res, err
	}
	err = p.db.Tx(ctx, func(tx *store.Tx) error {
		for i := range evs {
			seq, inserted, err := store.InsertEvent(ctx, tx, &evs[i])
			if err != nil {
				return err
			}
			res.Seqs = append(res.Seqs, seq)
			if inserted {
				res.Duplicate = false
				if err := sources.CountRedactions(ctx, tx, counts[i]); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return res, err
}

// redactor is the store's secret redactor, built from the config's
// redaction section: the one every write path uses.
func (p *Pipeline) redactor() (*sources.Redactor, error) {
	return sources.NewRedactor(p.Config.Redaction)
}

// HookEvents maps a Claude Code hook payload to events: the user's prompt,
// the assistant's last message, a notification, or a tool call and its
// result. Each gets a dedupe key derived from the payload bytes, so the same
// payload recorded twice is stored once.
func HookEvents(pl payload.Payload, source string) []store.Event {
	sum := sha256.Sum256(pl.Raw)
	key := "hook:" + hex.EncodeToString(sum[:16])
	session := pl.SessionID
	if session == "" {
		session = "hook-" + time.Now().UTC().Format("2006-01-02")
	}
	meta, _ := json.Marshal(map[string]string{"hook_event_name": pl.HookEventName, "cwd": pl.Cwd, "transcript_path": pl.TranscriptPath})
	base := store.Event{SessionID: session, Source: source, EventType: "message", ContentType: "text", Metadata: meta}
	var out []store.Event
	add := func(role, eventType, contentType, content, part string) {
		ev := base
		ev.Role, ev.EventType, ev.ContentType, ev.Content = role, eventType, contentType, content
		ev.DedupeKey = key + part
		out = append(out, ev)
	}
	switch {
	case pl.Prompt != "":
		add("user", "message", "text", pl.Prompt, "")
	case pl.LastAssistantMessage != "":
		add("assistant", "message", "text", pl.LastAssistantMessage, "")
	case pl.ToolName != "":
		call, _ := json.Marshal(map[string]any{"name": pl.ToolName, "input": pl.ToolInput})
		add("assistant", "tool_call", "json", string(call), ":call")
		if len(pl.ToolResponse) > 0 {
			add("tool", "tool_result", "json", string(pl.ToolResponse), ":result")
		}
	case pl.Message != "":
		add("system", "message", "text", pl.Message, "")
	}
	return out
}
