package control

import "time"

// Response is the one line of JSON the daemon answers with.
type Response struct {
	OK bool `json:"ok"`
	// Message is one human-readable line: what the daemon did with the
	// request, or why it refused it.
	Message string  `json:"message"`
	Status  *Status `json:"status,omitempty"`
	// Stdout and Stderr answer a context request: what the hook writes,
	// exactly.
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
}

// Status is what a running scheduler reports about itself. Counts cover
// this process's lifetime only.
type Status struct {
	PID int `json:"pid"`
	// Kind is the process that runs the scheduler: "daemon" (recollect
	// daemon) or "mcp" (recollect mcp, while no daemon runs).
	Kind    string    `json:"kind,omitempty"`
	DataDir string    `json:"data_dir"`
	Started time.Time `json:"started"`
	// Running is true while a consolidation run is in flight; Pending is
	// true when a follow-up run is already queued behind it.
	Running bool `json:"running"`
	Pending bool `json:"pending"`
	// Waiting counts wait requests (OpWait) held until the run in flight
	// ends: session-start hooks after a compaction.
	Waiting int `json:"waiting,omitempty"`
	// Runs counts finished runs per trigger; Skipped counts threshold
	// notifications that were not due.
	Runs    map[string]int `json:"runs"`
	Skipped int            `json:"skipped"`
	// Coalesced counts notifications that joined an already queued run.
	Coalesced int `json:"coalesced"`
	// Answered counts the context hook and search requests this process
	// answered from its open store.
	Answered int `json:"answered"`
	// Copied counts transcript lines the follower stored; CopyErrors the
	// files whose copy failed.
	Copied     int `json:"copied"`
	CopyErrors int `json:"copy_errors"`
	// UnreadableFolders lists source folders the follower could not list
	// at its last scan: the transcripts in them are not followed.
	UnreadableFolders []string `json:"unreadable_folders,omitempty"`
	// LastError is the most recent failed run or copy, "" when none failed.
	LastError string `json:"last_error,omitempty"`
}
