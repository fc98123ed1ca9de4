package integrate

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/recollect/recollect/store"
)

// Open work leaves the list when it is done: a fact of kind done (a
// finished plan step, a commit) supersedes the open tasks of the same
// project that it closes. It closes a task when both name the same task
// id ("spotter-gqc.6", "#123", "PROJ-42"), or when the done fact holds
// most of the task's distinctive words.

// openTasksLimit bounds the open tasks of a project one done fact is
// compared with: the newest ones.
const openTasksLimit = 200

// closedTasks returns the supersessions of the open tasks pf closes.
func (in *Integrator) closedTasks(ctx context.Context, pf PendingFact) ([]supersession, error) {
	if pf.Kind != store.KindDone {
		return nil, nil
	}
	rows, err := in.DB.QueryContext(ctx, `SELECT f.id, f.content FROM facts f
		WHERE f.status = 'active' AND f.kind = 'task' AND f.session_id IN (
			SELECT s.id FROM sessions s WHERE s.id = ? OR s.project = (SELECT p.project FROM sessions p WHERE p.id = ?))
		ORDER BY f.id DESC LIMIT ?`, pf.SessionID, pf.SessionID, openTasksLimit)
	if err != nil {
		return nil, fmt.Errorf("find open tasks: %w", err)
	}
	defer rows.Close()
	var out []supersession
	for rows.Next() {
		var id int64
		var content string
		if err := rows.Scan(&id, &content); err != nil {
			return nil, fmt.Errorf("find open tasks: %w", err)
		}
		if why, ok := closes(pf.Content, content); ok {
			out = append(out, supersession{newer: 0, older: id, reason: why, actor: "heuristic"})
		}
	}
	return out, rows.Err()
}

var taskIDRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)+(?:\.\d+)+\b|#\d+\b|\b[A-Z][A-Z0-9]+-\d+\b`)
})

// closes reports whether the done statement closes the task, and why.
func closes(done, task string) (string, bool) {
	ids := map[string]bool{}
	for _, id := range taskIDRe().FindAllString(done, -1) {
		ids[strings.ToLower(id)] = true
	}
	for _, id := range taskIDRe().FindAllString(task, -1) {
		if ids[strings.ToLower(id)] {
			return "the task " + id + " is done", true
		}
	}
	if t := strings.TrimSpace(taskText(task)); t != "" && strings.EqualFold(t, strings.TrimSpace(doneText(done))) {
		return "the task is done", true
	}
	want := taskWords(taskText(task))
	if len(want) < 3 {
		return "", false
	}
	have := map[string]bool{}
	for _, w := range taskWords(done) {
		have[w] = true
	}
	n := 0
	for _, w := range want {
		if have[w] {
			n++
		}
	}
	if float64(n) >= 0.7*float64(len(want)) {
		return "the task is done", true
	}
	return "", false
}

// taskText is a task fact's words after its "…task: " lead.
func taskText(s string) string {
	if i := strings.Index(s, "task: "); i >= 0 {
		return s[i+len("task: "):]
	}
	return s
}

// doneText is a done fact's words after its "…done: " lead.
func doneText(s string) string {
	if i := strings.Index(s, "done: "); i >= 0 {
		return s[i+len("done: "):]
	}
	return s
}

// taskWords are the distinct words of four letters or more.
func taskWords(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		if len(w) < 4 || seen[w] || taskStopwords()[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

var taskStopwords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"task": true, "done": true, "with": true, "that": true, "this": true, "from": true, "into": true, "open": true, "pending": true, "progress": true}
})
