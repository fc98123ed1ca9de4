package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/recollect/recollect/scheduler/daemonproc"
	"github.com/recollect/recollect/store/config"
)

// Parts of the systems table, in the order they run.
var Parts = []string{"copy", "import", "search", "integrate", "notify", "hooks", "cli", "follow", "idle"}

// BinaryParts are the parts that run the recollect binary (SystemsOptions.Binary);
// the others run in process.
var BinaryParts = []string{"import", "notify", "hooks", "cli", "follow", "idle"}

// SystemsOptions configure the systems table. Zero values take the
// issue's sizes (DefaultSystems).
type SystemsOptions struct {
	// Binary is the recollect executable whose daemon and notify are timed.
	Binary string
	// Fixtures holds the real transcripts (claude-code/…/*.jsonl).
	Fixtures string
	// WorkDir holds the stores; a temporary directory when empty.
	WorkDir string
	// KeepStores, when set, keeps the integrate part's and the SQLite
	// hooks part's built stores there and copies them on later runs
	// instead of building them again.
	KeepStores    string
	NotifyRuns    int
	CopyLines     int
	FollowAppends int
	SearchSizes   []int
	// IntegrateSizes are the stores new facts are integrated into; the
	// first is the baseline of the others.
	IntegrateSizes []int
	// IntegrateRounds is how many times each size is timed (the median
	// is its figure); IntegrateRounds when zero.
	IntegrateRounds int
	// ImportMB is the size of the history the import part builds.
	ImportMB      int
	SearchQueries int
	Idle          time.Duration
	// Only runs these parts (all when empty).
	Only []string
	// Progress, when set, receives a line as each part starts.
	Progress func(string)
	// Stores is the engine the copy and search parts' stores live in
	// (SQLite when zero); the other parts run on SQLite only.
	Stores Stores
}

// EngineParts are the parts that run on either engine (SystemsOptions.Stores)
// by default; EngineOnlyParts those that may be asked for with --only.
var (
	EngineParts     = []string{"copy", "search"}
	EngineOnlyParts = []string{"copy", "search", "hooks"}
)

// DefaultSystems returns the sizes the targets are stated for.
func DefaultSystems() SystemsOptions {
	return SystemsOptions{Fixtures: FixturesDefaultPath, NotifyRuns: 30, CopyLines: 200_000, FollowAppends: 200,
		SearchSizes: []int{10_000, 100_000}, IntegrateSizes: []int{1000, 100_000}, IntegrateRounds: IntegrateRounds, ImportMB: 200, SearchQueries: 200, Idle: 60 * time.Second}
}

// SystemsReport holds what was measured; a part that could not be measured
// is absent and its reason is in Failed.
type SystemsReport struct {
	Machine Machine `json:"machine"`
	// Engine is where the copy and search stores lived: sqlite or postgres.
	Engine string         `json:"engine"`
	Copy   *CopyResult    `json:"copy,omitempty"`
	Import *ImportResult  `json:"import,omitempty"`
	Search []SearchResult `json:"search,omitempty"`
	// Integrate is one row per store size, smallest first.
	Integrate []IntegrateResult `json:"integrate,omitempty"`
	Notify    *NotifyResult     `json:"notify,omitempty"`
	Hooks     []HookResult      `json:"hooks,omitempty"`
	CLI       *CLIResult        `json:"cli,omitempty"`
	Follow    *FollowResult     `json:"follow,omitempty"`
	Idle      *IdleResult       `json:"idle,omitempty"`
	Failed    map[string]string `json:"not_measured,omitempty"`
}

// Machine says where the figures were measured.
type Machine struct {
	CPU       string `json:"cpu"`
	NumCPU    int    `json:"nproc"`
	GoVersion string `json:"go_version"`
	OS        string `json:"os"`
	// LoadAvg is /proc/loadavg at the start: figures on a loaded machine
	// are slower, ratios much less so.
	LoadAvg string `json:"loadavg"`
}

// ReadMachine describes this machine.
func ReadMachine() Machine {
	m := Machine{NumCPU: runtime.NumCPU(), GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH, CPU: "unknown"}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(l, "model name"); ok {
				m.CPU = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(data))
		if len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	return m
}

// RunSystems measures the parts selected in opts.
func RunSystems(ctx context.Context, opts SystemsOptions) (SystemsReport, error) {
	rep := SystemsReport{Machine: ReadMachine(), Engine: opts.Stores.Engine(), Failed: map[string]string{}}
	stores, err := opts.Stores.named()
	if err != nil {
		return rep, err
	}
	work := opts.WorkDir
	if work == "" {
		if work, err = os.MkdirTemp("", "recollect-bench-"); err != nil {
			return rep, fmt.Errorf("create work directory: %w", err)
		}
		defer os.RemoveAll(work)
	}
	if stores.Engine() == "postgres" {
		// A missing URL variable or a server that does not answer stops the
		// run with the store's own one-line error, before any part.
		_, closeProbe, err := stores.open(ctx, filepath.Join(work, "probe"), "probe")
		if err != nil {
			return rep, err
		}
		if err := closeProbe(); err != nil {
			return rep, err
		}
	}
	want := func(part string) bool { return len(opts.Only) == 0 || contains(opts.Only, part) }
	say := func(s string) {
		if opts.Progress != nil {
			opts.Progress(s)
		}
	}
	if want("copy") {
		say(fmt.Sprintf("copy: %d lines from %s", opts.CopyLines, opts.Fixtures))
		if r, err := BenchCopy(ctx, filepath.Join(work, "copy"), opts.Fixtures, opts.CopyLines, stores); err != nil {
			rep.Failed["copy"] = err.Error()
		} else {
			rep.Copy = &r
		}
		os.RemoveAll(filepath.Join(work, "copy"))
	}
	if want("import") {
		say(fmt.Sprintf("import: %d MB of history built from %s, daemon and consolidate --all", opts.ImportMB, opts.Fixtures))
		if opts.Binary == "" {
			rep.Failed["import"] = "no recollect binary to time; recollect-bench finds one beside itself, or give --recollect DIR"
		} else if r, err := BenchImport(ctx, opts.Binary, filepath.Join(work, "import"), opts.Fixtures, opts.ImportMB); err != nil {
			rep.Failed["import"] = err.Error()
		} else {
			rep.Import = &r
		}
		os.RemoveAll(filepath.Join(work, "import"))
	}
	if want("search") {
		for _, n := range opts.SearchSizes {
			say(fmt.Sprintf("search: %d facts, %d queries", n, opts.SearchQueries))
			r, err := BenchSearch(ctx, filepath.Join(work, "search"), opts.Fixtures, n, opts.SearchQueries, stores)
			if err != nil {
				rep.Failed[fmt.Sprintf("search %d", n)] = err.Error()
				continue
			}
			rep.Search = append(rep.Search, r)
		}
		os.RemoveAll(filepath.Join(work, "search"))
	}
	if want("integrate") {
		rep.Integrate = benchIntegrateRounds(ctx, work, opts.KeepStores, opts.Fixtures, opts.IntegrateSizes, opts.IntegrateRounds, say, rep.Failed)
	}
	if want("notify") {
		say(fmt.Sprintf("notify: %d rounds of notify, node -e 0, true", opts.NotifyRuns))
		if opts.Binary == "" {
			rep.Failed["notify"] = "no recollect binary to time; recollect-bench finds one beside itself, or give --recollect DIR"
		} else if r, err := BenchNotify(ctx, opts.Binary, opts.NotifyRuns); err != nil {
			rep.Failed["notify"] = err.Error()
		} else {
			rep.Notify = &r
		}
	}
	if want("hooks") {
		for _, n := range opts.SearchSizes {
			say(fmt.Sprintf("hooks: %d facts, %d rounds of session-start, user-prompt, search, node -e 0, true; then as many with a daemon serving them", n, opts.NotifyRuns))
			if opts.Binary == "" {
				rep.Failed["hooks"] = "no recollect binary to time; recollect-bench finds one beside itself, or give --recollect DIR"
				break
			}
			r, err := BenchHooks(ctx, opts.Binary, filepath.Join(work, "hooks"), opts.KeepStores, opts.Fixtures, n, opts.NotifyRuns, stores)
			if err != nil {
				rep.Failed[fmt.Sprintf("hooks %d", n)] = err.Error()
				continue
			}
			rep.Hooks = append(rep.Hooks, r)
		}
		os.RemoveAll(filepath.Join(work, "hooks"))
	}
	if want("cli") {
		say(fmt.Sprintf("cli: %d facts, %d rounds of recollect search, the sqlite3 shell, recollect version, recollect-notify --help", CLIFacts, opts.NotifyRuns))
		if opts.Binary == "" {
			rep.Failed["cli"] = "no recollect binary to time; recollect-bench finds one beside itself, or give --recollect DIR"
		} else if r, err := BenchCLI(ctx, opts.Binary, filepath.Join(work, "cli"), opts.Fixtures, CLIFacts, opts.NotifyRuns); err != nil {
			rep.Failed["cli"] = err.Error()
		} else {
			rep.CLI = &r
		}
		os.RemoveAll(filepath.Join(work, "cli"))
	}
	if want("follow") || want("idle") {
		if err := runDaemonParts(ctx, opts, filepath.Join(work, "daemon"), &rep, want, say); err != nil {
			rep.Failed["daemon"] = err.Error()
		}
	}
	if len(rep.Failed) == 0 {
		rep.Failed = nil
	}
	return rep, ctx.Err()
}

// runDaemonParts starts one daemon following a Claude Code home and times
// notify against it, then follow, then leaves it idle.
func runDaemonParts(ctx context.Context, opts SystemsOptions, work string, rep *SystemsReport, want func(string) bool, say func(string)) error {
	if opts.Binary == "" {
		return fmt.Errorf("no recollect binary to start; recollect-bench finds one beside itself, or give --recollect DIR")
	}
	dir := filepath.Join(work, "data")
	path, err := followSetup(dir, filepath.Join(work, "claude"), want("follow"))
	if err != nil {
		return err
	}
	d, err := daemonproc.Start(ctx, opts.Binary, dir)
	if err != nil && want("follow") {
		// A daemon that cannot follow transcripts still answers notify and
		// can idle: measure those on a record store, say why follow is not.
		rep.Failed["follow"] = "the daemon cannot follow transcripts: " + err.Error()
		want = func(part string) bool { return part != "follow" && (len(opts.Only) == 0 || contains(opts.Only, part)) }
		if err = config.Write(dir, config.Default()); err == nil {
			d, err = daemonproc.Start(ctx, opts.Binary, dir)
		}
	}
	if err != nil {
		return err
	}
	defer d.Kill()
	if err := daemonproc.WaitIdle(ctx, dir, 60*time.Second); err != nil {
		return fmt.Errorf("daemon never went idle after start: %w", err)
	}
	if want("follow") {
		say(fmt.Sprintf("follow: %d appends", opts.FollowAppends))
		if r, err := BenchFollow(ctx, dir, path, opts.FollowAppends); err != nil {
			rep.Failed["follow"] = err.Error()
		} else {
			rep.Follow = &r
		}
	}
	if want("idle") {
		if err := daemonproc.WaitIdle(ctx, dir, 120*time.Second); err != nil {
			rep.Failed["idle"] = "daemon never went idle: " + err.Error()
		} else {
			say(fmt.Sprintf("idle: %s with no input", opts.Idle))
			if r, err := BenchIdle(ctx, d.PID(), opts.Idle); err != nil {
				rep.Failed["idle"] = err.Error()
			} else {
				rep.Idle = &r
			}
		}
	}
	if err := d.Stop(); err != nil {
		return fmt.Errorf("daemon did not stop cleanly: %w", err)
	}
	return nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
