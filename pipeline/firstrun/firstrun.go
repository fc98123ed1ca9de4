// Package firstrun makes the store a plugin finds missing: the copy-mode
// config `recollect init` would choose for the project (every agent that
// holds transcripts of it), written once however many processes start at
// the same moment, and a notice of what was done that the next
// session-start message shows exactly once.
package firstrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/sqlite"
)

// NoticeFile holds, in the data directory, what the first run did until a
// session-start message has shown it.
const NoticeFile = "first-run.txt"

// Agent is an agent installed here: its source kind, its home, and how
// many of its transcripts were recorded in the project.
type Agent struct {
	Kind        string
	Home        string
	Transcripts int
}

// Agents lists the agents whose home exists (~/.claude, ~/.cursor,
// ~/.codex, ~/.gemini, or their environment overrides), in the order of
// config.SourceKinds, each with the transcripts a copy source for cwd
// would match. Without HOME it finds none rather than guess.
func Agents(cwd string, getenv func(string) string) []Agent {
	if getenv("HOME") == "" {
		return nil
	}
	var out []Agent
	for _, kind := range config.SourceKinds {
		reps, err := sources.Diagnose([]config.Source{{Kind: kind, Cwd: cwd}}, getenv)
		if err == nil && len(reps) == 1 && reps[0].HomeFound {
			out = append(out, Agent{Kind: kind, Home: reps[0].Home, Transcripts: reps[0].Matched})
		}
	}
	return out
}

// ProjectConfig is the config init's defaults give a store for the
// project at cwd: copy mode, one source per agent that holds transcripts
// of it (the one with most first), each limited to cwd. When no agent
// holds any yet, the source is fallback's kind (the agent the caller runs
// in, whose transcripts of this project are about to be written). used
// lists the agents chosen, with their counts.
func ProjectConfig(cwd string, agents []Agent, fallback string) (cfg config.Config, used []Agent) {
	cfg = config.Default()
	cfg.Mode = config.ModeCopy
	for _, a := range agents {
		if a.Transcripts > 0 {
			used = append(used, a)
		}
	}
	// The agent with most transcripts first, ties in SourceKinds order.
	for i := 1; i < len(used); i++ {
		for j := i; j > 0 && used[j].Transcripts > used[j-1].Transcripts; j-- {
			used[j], used[j-1] = used[j-1], used[j]
		}
	}
	if len(used) == 0 {
		used = []Agent{{Kind: fallback}}
		for _, a := range agents {
			if a.Kind == fallback {
				used[0] = a
			}
		}
	}
	for _, a := range used {
		cfg.Sources = append(cfg.Sources, config.Source{Kind: a.Kind, Cwd: cwd})
	}
	return cfg, used
}

// Describe says in one sentence what a first run made: the store, what it
// copies, the provider, and how to change it.
func Describe(dir, cwd string, cfg config.Config, used []Agent) string {
	parts := make([]string, len(used))
	for i, a := range used {
		parts[i] = fmt.Sprintf("%s (%s)", a.Kind, text.Plural(a.Transcripts, "transcript"))
	}
	return fmt.Sprintf("recollect: first run — made the memory store %s in copy mode: it copies this project's conversations (%s) from %s "+
		"and consolidates them with provider %s, starting now in the background. "+
		"See or change it with: recollect settings --data %s (or recollect init --force --data %s for the walk-through).",
		dir, cwd, strings.Join(parts, ", "), cfg.Intelligence.Provider, dir, dir)
}

// Fresh reports whether dir holds no store yet: no config.json, and no
// memory.db or one that holds no event and no fact (what an MCP server of
// an earlier version made before any config existed).
func Fresh(ctx context.Context, dir string) (bool, error) {
	if _, err := os.Stat(filepath.Join(dir, config.FileName)); !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if _, err := os.Stat(filepath.Join(dir, store.DBFile)); errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	db, err := sqlite.OpenReader(ctx, dir)
	if err != nil {
		return false, nil // not a store to judge: leave it as it is
	}
	defer db.Close()
	var n int64
	err = db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM session_events) + (SELECT count(*) FROM facts)`).Scan(&n)
	return err == nil && n == 0, nil
}

// claimWait bounds how long a process that lost the race to make the
// config waits for the winner to write it.
const claimWait = 5 * time.Second

// staleClaim is the age after which a notice without a config is taken
// for the leftover of a process that died before writing the config.
const staleClaim = time.Minute

// Create writes cfg as dir's config.json and notice as its NoticeFile,
// unless dir already has a config. Of processes racing on one directory
// exactly one writes (created true); the others wait until its config is
// there. The notice is in place before the config, so whoever sees the
// config also finds the notice until it is taken.
func Create(dir string, cfg config.Config, notice string) (created bool, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("create %s: %w", dir, err)
	}
	cfgPath := filepath.Join(dir, config.FileName)
	noticePath := filepath.Join(dir, NoticeFile)
	for attempt := 0; ; attempt++ {
		if _, err := os.Stat(cfgPath); err == nil {
			return false, nil
		}
		err := linkNew(noticePath, []byte(notice+"\n"))
		if err == nil {
			if err := config.Write(dir, cfg); err != nil {
				os.Remove(noticePath)
				return false, err
			}
			return true, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return false, fmt.Errorf("first run in %s: %w", dir, err)
		}
		// Another process claimed it: wait for its config.
		deadline := time.Now().Add(claimWait)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(cfgPath); err == nil {
				return false, nil
			}
			time.Sleep(20 * time.Millisecond)
		}
		fi, err := os.Stat(noticePath)
		if attempt > 0 || err != nil || time.Since(fi.ModTime()) < staleClaim {
			return false, fmt.Errorf("first run in %s: another process is making the store and has not written %s after %s", dir, config.FileName, claimWait)
		}
		os.Remove(noticePath) // its maker died before writing the config
	}
}

// linkNew writes data to path, which must not exist: written whole under a
// temporary name, then linked into place, so the first link wins and no
// reader sees half the file.
func linkNew(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Link(tmp.Name(), path)
}

// TakeNotice returns the first run's notice and removes it, so that of
// any number of session starts exactly one shows it. ok is false when
// there is none (or another process took it first).
func TakeNotice(dir string) (text string, ok bool) {
	path := filepath.Join(dir, NoticeFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	if err := os.Remove(path); err != nil {
		return "", false
	}
	return strings.TrimSpace(string(data)), true
}
