package integrate

import "testing"

func TestDoneClosesTask(t *testing.T) {
	for _, tc := range []struct {
		done, task string
		want       bool
	}{
		{`app: commit "feat: close review session (spotter-gqc.6)"`, "app: task: spotter-gqc.6 (in_progress): Close project review session", true},
		{`app: commit "feat: close review session (spotter-gqc.6)"`, "app: task: spotter-gqc.7 (open): Launch project review conversation", false},
		{"app: done: Update go.mod to go 1.24", "app: task: Update go.mod to go 1.24", true},
		{"app: done: Add status command", "app: task: Add minimal config tests", false},
		{`app: commit "fix: handle #42 retries"`, "app: task: #42 uploads fail on 503", true},
		{`app: commit "feat: everything (spotter-gqc)"`, "app: task: spotter-gqc.6 (in_progress): Close project review session", false},
	} {
		if _, got := closes(tc.done, tc.task); got != tc.want {
			t.Errorf("closes(%q, %q) = %v, want %v", tc.done, tc.task, got, tc.want)
		}
	}
}
