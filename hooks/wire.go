package hooks

import (
	"path/filepath"
	"time"
)

// SocketName is the control socket's file name inside a data directory.
const SocketName = "recollect.sock"

// SocketPath is the control socket of data directory dataDir.
func SocketPath(dataDir string) string { return filepath.Join(dataDir, SocketName) }

// Moment names a point in an agent's life that may start a consolidation
// run. The scheduler owns what each moment runs; the client only names it.
type Moment string

// The moments. Only compaction and threshold travel over the socket; start
// and shutdown happen inside the process that runs the scheduler.
const (
	MomentStart      Moment = "daemon-start"
	MomentCompaction Moment = "compaction"
	MomentThreshold  Moment = "threshold"
	MomentShutdown   Moment = "shutdown"
)

// NotifyMoments are the moments a client may send, in the order the CLI
// lists them.
var NotifyMoments = []Moment{MomentCompaction, MomentThreshold}

// The operations a Request may carry.
const (
	// OpNotify reports a moment; the daemon queues the run it calls for and
	// acknowledges at once, before the run.
	OpNotify = "notify"
	// OpStatus asks what the scheduler is doing.
	OpStatus = "status"
)

// Request is one line of JSON a client writes to the control socket.
type Request struct {
	Op     string `json:"op"`
	Moment Moment `json:"moment,omitempty"`
	// SessionID and TranscriptPath come from the hook payload; the daemon
	// copies TranscriptPath first when the moment copies.
	SessionID      string `json:"session_id,omitempty"`
	TranscriptPath string `json:"transcript_path,omitempty"`
}

// Response is the one line of JSON the daemon answers with.
type Response struct {
	OK bool `json:"ok"`
	// Message is one human-readable line: what the daemon did with the
	// request, or why it refused it.
	Message string  `json:"message"`
	Status  *Status `json:"status,omitempty"`
}

// Status is what a running scheduler reports about itself. Counts cover
// this process's lifetime only.
type Status struct {
	PID     int       `json:"pid"`
	DataDir string    `json:"data_dir"`
	Started time.Time `json:"started"`
	// Running is true while a consolidation run is in flight; Pending is
	// true when a follow-up run is already queued behind it.
	Running bool `json:"running"`
	Pending bool `json:"pending"`
	// Runs counts finished runs per trigger; Skipped counts threshold
	// notifications that were not due.
	Runs    map[string]int `json:"runs"`
	Skipped int            `json:"skipped"`
	// Coalesced counts notifications that joined an already queued run.
	Coalesced int `json:"coalesced"`
	// Copied counts transcript lines the follower stored; CopyErrors the
	// files whose copy failed.
	Copied     int `json:"copied"`
	CopyErrors int `json:"copy_errors"`
	// LastError is the most recent failed run or copy, "" when none failed.
	LastError string `json:"last_error,omitempty"`
}
