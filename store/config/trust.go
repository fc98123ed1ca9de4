package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/recollect/recollect/store/datadir"
	"github.com/recollect/recollect/store/regfile"
)

// A config.json found by walking up from the current directory may have
// come with a cloned repository. Such a config can widen what recollect
// reads (copy mode over ~/.claude) and where it sends it (a model or
// embedding host), so it is used only once the user has approved its
// exact bytes, the way direnv allow and git's safe.directory work. The
// approvals live in the user's own state, never in the project.

// ApprovalsFile is the file, under the user's config directory, that
// records approved project configs.
const ApprovalsFile = "approved.json"

// maxConfigBytes bounds what a trust check reads of a config file.
const maxConfigBytes = 1 << 20

// Approval is one approved config: its absolute path and the SHA-256 of
// the bytes the user saw.
//
// A store approval (Kind "store") names a project's memory.db instead: a
// database found by walking up may have come with a cloned repository too,
// and it reaches the agent (its notes go into the session's context, the
// agent's notes go into it). It records the file's device and inode, so a
// file put in its place later is not approved by it.
type Approval struct {
	Kind       string `json:"kind,omitempty"`
	Path       string `json:"path"`
	SHA256     string `json:"sha256,omitempty"`
	FileID     string `json:"file_id,omitempty"`
	ApprovedAt string `json:"approved_at"`
	// Identity, on a store approval, is the random identity recollect
	// wrote into the database when it was made or approved: a file whose
	// content was replaced in place (same inode) holds another, or none.
	Identity string `json:"identity,omitempty"`
	// Store, on a config approval, is the memory.db beside the config
	// when it was approved: its file id, or "none". The config vouches
	// for that database alone, never for one that appeared later.
	Store string `json:"store,omitempty"`
}

// KindStore marks an approval of a project's database file; an approval
// without a kind is of a config file.
const KindStore = "store"

// UntrustedError refuses a project config the user has not approved, or
// one that changed since; with Store, a project's database the user has
// not approved (no command of theirs created it), or one replaced since.
type UntrustedError struct {
	Path    string
	Changed bool
	Store   bool
}

func (e *UntrustedError) Error() string {
	what, why := "is a project's config you have not approved", "a project config can read your transcripts and send them to a model host"
	switch {
	case e.Store && e.Changed:
		what = "was replaced since you approved it"
	case e.Store:
		what = "is a project's memory you have not approved"
	case e.Changed:
		what = "changed since you approved it"
	}
	if e.Store {
		why = "a repository can bring one: its notes would reach your agent's context and your agent's notes would be written into it"
	}
	return fmt.Sprintf("%s %s (%s); review and approve it with: recollect trust", e.Path, what, why)
}

// ApprovalsPath is where approvals are kept: $XDG_CONFIG_HOME/recollect,
// else ~/.config/recollect.
func ApprovalsPath(getenv func(string) string) (string, error) {
	dir := datadir.ConfigDir(getenv)
	if dir == "" {
		// Neither variable is set: the user's home as the system knows it.
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the approvals file: %w; set HOME or XDG_CONFIG_HOME", err)
		}
		dir = filepath.Join(h, ".config", "recollect")
	}
	return filepath.Join(dir, ApprovalsFile), nil
}

// ProjectConfig is a data directory's config.json as a trust check sees it.
type ProjectConfig struct {
	// Path is the config file's absolute path; Exists is false when there
	// is none (the defaults, which need no approval).
	Path   string
	Exists bool
	// Digest is the SHA-256 of its bytes, hex.
	Digest string
	// Config is the parsed config; ParseErr is set when it does not parse
	// (loading reports that with the field path).
	Config   Config
	ParseErr error
}

// ReadProject reads dir's config.json for a trust check. Anything but a
// regular file (a FIFO, a device) is refused before it is opened.
func ReadProject(dir string) (ProjectConfig, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ProjectConfig{}, fmt.Errorf("resolve %s: %w", dir, err)
	}
	pc := ProjectConfig{Path: filepath.Join(abs, FileName)}
	f, _, err := regfile.Open(pc.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return pc, nil
	case errors.Is(err, regfile.ErrNotRegular):
		return pc, fmt.Errorf("open config: %s: %w; replace it with a regular file or remove it", pc.Path, err)
	case err != nil:
		return pc, fmt.Errorf("open config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return pc, fmt.Errorf("read %s: %w", pc.Path, err)
	}
	if len(data) > maxConfigBytes {
		return pc, fmt.Errorf("%s is larger than %d bytes; a config is a few kilobytes", pc.Path, maxConfigBytes)
	}
	sum := sha256.Sum256(data)
	pc.Exists, pc.Digest = true, hex.EncodeToString(sum[:])
	pc.Config, pc.ParseErr = Parse(bytes.NewReader(data))
	return pc, nil
}

// Harmless reports whether cfg reads nothing but what is recorded into the
// store and sends nothing anywhere: record mode with no sources, the
// heuristic provider for every stage, no embeddings, redaction on, the
// store in the data directory (a postgres store sends everything to the
// server whose URL a named variable holds), and nothing that deletes
// memory by itself (an agents' forget tool, a retention window). Such a
// config needs no approval; any other does.
func Harmless(cfg Config) bool {
	if cfg.Mode != ModeRecord || len(cfg.Sources) > 0 || cfg.Embedding.Provider != "" || !cfg.Redaction.Enabled || cfg.Storage.Provider != "sqlite" || cfg.Retention.AgentForget || cfg.Retention.Window.Set() {
		return false
	}
	return slices.Equal(usedProviders(cfg), []string{"heuristic"})
}

// usedProviders lists the providers cfg can call, sorted.
func usedProviders(cfg Config) []string {
	set := []string{cfg.Intelligence.Provider}
	for _, r := range cfg.Intelligence.Stages {
		for _, p := range []string{r.Provider, r.OnFail} {
			if p != "" && p != "none" {
				set = append(set, p)
			}
		}
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// Describe says, one line each, what cfg would read and where it would
// send what it reads: the lines a person approves.
func Describe(cfg Config) []string {
	var out []string
	switch {
	case cfg.Mode == ModeCopy:
		out = append(out, "reads: copies transcripts from:")
		for _, s := range cfg.Sources {
			home := Show(s.Home)
			if s.Home == "" {
				home = "the default home (" + defaultHomes()[s.Kind] + ")"
			}
			cwd := "EVERY project (no cwd)"
			if s.Cwd != "" {
				cwd = "the project " + Show(s.Cwd)
			}
			sub := ""
			if s.IncludeSubagents {
				sub = ", subagents included"
			}
			out = append(out, fmt.Sprintf("  %s transcripts in %s, of %s%s", s.Kind, home, cwd, sub))
		}
	default:
		out = append(out, "reads: only what record, hooks and the log_event tool store (record mode)")
	}
	for _, p := range usedProviders(cfg) {
		switch p {
		case "heuristic":
			out = append(out, "sends: nothing for the heuristic provider (it runs in this process)")
		case "http":
			key := ", no API key"
			if cfg.Intelligence.HTTP.APIKeyEnv != "" {
				key = ""
			}
			out = append(out, fmt.Sprintf("sends: conversation text to %s (http provider, model %s%s)", ShowURL(cfg.Intelligence.HTTP.BaseURL), Show(cfg.Intelligence.HTTP.Model), key))
			if env := cfg.Intelligence.HTTP.APIKeyEnv; env != "" {
				out = append(out, fmt.Sprintf("sends: the value of $%s, as its API key, to %s", env, ShowURL(cfg.Intelligence.HTTP.BaseURL)))
			}
		case "ollama":
			out = append(out, fmt.Sprintf("sends: conversation text to %s (ollama provider, model %s)", ShowURL(cfg.Intelligence.Ollama.Host), Show(cfg.Intelligence.Ollama.Model)))
		case "cli":
			out = append(out, fmt.Sprintf("runs: the command %s with conversation text (cli provider, model %s)", Show(cfg.Intelligence.CLI.Command), Show(cfg.Intelligence.CLI.Model)))
		}
	}
	if e := cfg.Embedding; e.Provider != "" {
		host := "the " + e.Provider + " default host"
		if e.BaseURL != "" {
			host = ShowURL(e.BaseURL)
		}
		out = append(out, fmt.Sprintf("sends: facts and queries to %s for embeddings (%s, model %s)", host, Show(e.Provider), Show(e.Model)))
		if e.APIKeyEnv != "" {
			out = append(out, fmt.Sprintf("sends: the value of $%s, as its API key, to %s", e.APIKeyEnv, host))
		}
	}
	if !cfg.Redaction.Enabled {
		out = append(out, "stores: secrets as written (redaction.enabled is false)")
	}
	if cfg.Retention.AgentForget {
		out = append(out, "lets: your agents delete memory for good through the MCP forget tool (retention.agent_forget)")
	}
	if w := cfg.Retention.Window; w.Set() {
		out = append(out, fmt.Sprintf("deletes: for good, what happened more than %s ago, and hides it from every read until then (retention.window)", Show(w.String())))
	}
	if st := cfg.Storage; st.Provider == "postgres" {
		env := st.Postgres.URLEnv
		if env == "" {
			env = "RECOLLECT_POSTGRES_URL"
		}
		schema := Show(st.Postgres.Schema)
		if st.Postgres.Schema == "" {
			schema = "named after the data directory"
		}
		out = append(out, fmt.Sprintf("stores: everything on the PostgreSQL server whose URL $%s holds (schema %s)", env, schema))
	}
	return out
}

// defaultHomes names where each source kind looks when a source gives no
// home, as Describe shows it.
var defaultHomes = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"claude-code": "$CLAUDE_CONFIG_DIR or ~/.claude",
		"cursor":      "~/.cursor",
		"codex":       "$CODEX_HOME or ~/.codex",
		"gemini":      "$GEMINI_CLI_HOME/.gemini or ~/.gemini",
	}
})

// CheckProject refuses dir's config.json unless it is missing, harmless,
// does not parse (loading reports why) or its path and digest are
// approved; and then dir's database unless it is missing, approved as a
// store (the same file, by device and inode), or comes with an approved
// config (a store made before stores were approved). It is for a data
// directory found by walking up from the current directory; one named by
// --data, $RECOLLECT_DATA or the user's own ~/.recollect is the user's
// choice.
func CheckProject(dir string, getenv func(string) string) error {
	_, err := TrustedConfig(dir, getenv)
	return err
}

// TrustedConfig reads dir's config.json once, checks those bytes as
// CheckProject does, and returns the config parsed from the same bytes:
// what is checked is what is used, so a file swapped between a check and
// an open cannot run unapproved. The user's own ~/.recollect is loaded as
// it is.
func TrustedConfig(dir string, getenv func(string) string) (Config, error) {
	if ownStore(dir, getenv) {
		return Load(dir)
	}
	pc, err := ReadProject(dir)
	if err != nil {
		return Config{}, err
	}
	if pc.ParseErr != nil {
		return Config{}, pc.ParseErr
	}
	approvals, err := readApprovals(getenv)
	if err != nil {
		return Config{}, err
	}
	configApproved := false
	var vouch *Approval
	if pc.Exists {
		for i, a := range approvals {
			if a.Kind == "" && a.Path == pc.Path {
				configApproved = a.SHA256 == pc.Digest
				if configApproved {
					vouch = &approvals[i]
				}
				if !configApproved && !Harmless(pc.Config) {
					return Config{}, &UntrustedError{Path: pc.Path, Changed: true}
				}
			}
		}
		if !configApproved && !Harmless(pc.Config) {
			return Config{}, &UntrustedError{Path: pc.Path}
		}
	} else {
		pc.Config = Default()
	}
	if err := checkStore(filepath.Dir(pc.Path), approvals, vouch); err != nil {
		return Config{}, err
	}
	return pc.Config, nil
}

// ownStore reports whether dir is the user's own ~/.recollect, which a
// walk up from a folder outside any repository also reaches: it is never
// a project's.
func ownStore(dir string, getenv func(string) string) bool {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	abs, err := filepath.Abs(dir)
	return err == nil && home != "" && abs == filepath.Join(home, datadir.DirName)
}

// checkStore refuses dir's database unless it is missing or approved, as a
// store or by the config approval vouch (for the database that was there
// when the config was approved, not one put there since).
func checkStore(dir string, approvals []Approval, vouch *Approval) error {
	db := filepath.Join(dir, datadir.StoreFile)
	fi, err := os.Stat(db)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check store %s: %w", db, err)
	}
	for _, a := range approvals {
		if a.Kind == KindStore && a.Path == db {
			if a.FileID == "" || a.FileID == fileID(fi) {
				return nil
			}
			return &UntrustedError{Path: db, Changed: true, Store: true}
		}
	}
	if vouch != nil && vouch.Store != "" && vouch.Store == fileID(fi) {
		return nil
	}
	return &UntrustedError{Path: db, Store: true}
}

// fileID is fi's device and inode as an approval records them; "" where
// the platform has none (the path alone is then checked).
func fileID(fi os.FileInfo) string {
	dev, ino, ok := regfile.FileID(fi)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d", dev, ino)
}

// StoreState is a project's database as recollect trust shows it before
// asking: whether there is one, whether it is approved, and the file's
// size and last change.
type StoreState struct {
	Path     string
	Exists   bool
	Approved bool
	Size     int64
	Modified time.Time
}

// ReadStore describes dir's database for a trust check.
func ReadStore(dir string, getenv func(string) string) (StoreState, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return StoreState{}, fmt.Errorf("resolve %s: %w", dir, err)
	}
	st := StoreState{Path: filepath.Join(abs, datadir.StoreFile)}
	fi, err := os.Stat(st.Path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("check store %s: %w", st.Path, err)
	}
	st.Exists, st.Size, st.Modified = true, fi.Size(), fi.ModTime()
	approvals, err := readApprovals(getenv)
	if err != nil {
		return st, err
	}
	st.Approved = checkStore(abs, approvals, nil) == nil
	return st, nil
}

// Approve records pc (its path and the digest of the bytes read) as
// approved, replacing an older approval of the same path.
func Approve(pc ProjectConfig, getenv func(string) string) error {
	if !pc.Exists {
		return nil
	}
	store := "none"
	if fi, err := os.Stat(filepath.Join(filepath.Dir(pc.Path), datadir.StoreFile)); err == nil {
		store = fileID(fi)
	}
	return record(Approval{Path: pc.Path, SHA256: pc.Digest, Store: store}, getenv)
}

// ApproveDir approves dir's config.json as it is now: for a config the
// user just wrote (init, settings set).
func ApproveDir(dir string, getenv func(string) string) error {
	pc, err := ReadProject(dir)
	if err != nil {
		return err
	}
	return Approve(pc, getenv)
}

// ApproveStore approves dir's database file as it is now (this file, by
// device and inode): after recollect trust, and for a store a command of
// the user's just created.
func ApproveStore(dir string, getenv func(string) string) error {
	return ApproveStoreIdentity(dir, "", getenv)
}

// ApproveStoreIdentity is ApproveStore recording the identity recollect
// wrote into the database (see Approval.Identity).
func ApproveStoreIdentity(dir, identity string, getenv func(string) string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", dir, err)
	}
	db := filepath.Join(abs, datadir.StoreFile)
	fi, err := os.Stat(db)
	if errors.Is(err, os.ErrNotExist) {
		return nil // a store on PostgreSQL: nothing on disk to approve
	}
	if err != nil {
		return fmt.Errorf("approve store %s: %w", db, err)
	}
	return record(Approval{Kind: KindStore, Path: db, FileID: fileID(fi), Identity: identity}, getenv)
}

// StoreIdentity is the identity the approval of dir's database recorded,
// "" when it recorded none (an approval made before identities, or none).
func StoreIdentity(dir string, getenv func(string) string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	approvals, err := readApprovals(getenv)
	if err != nil {
		return "", err
	}
	db := filepath.Join(abs, datadir.StoreFile)
	for _, a := range approvals {
		if a.Kind == KindStore && a.Path == db {
			return a.Identity, nil
		}
	}
	return "", nil
}

// Checked reports whether a file in dir is ever checked for approval: only
// a directory named .recollect is — the only kind a walk up from the
// current directory finds — so a store named by --data or RECOLLECT_DATA
// elsewhere (a benchmark's, a test's) needs and leaves no approval.
func Checked(dir string) bool { return filepath.Base(dir) == datadir.DirName }

// Subject reports whether trust applies to the store directory dir,
// however it was named (a walk up, --data, $RECOLLECT_DATA): a directory
// named .recollect (the kind a walk up finds, and a repository can bring)
// or one inside a repository — never the user's own ~/.recollect. Within
// those, the stores the user's own commands created are approved as they
// are made (ApproveStore), so only what came from elsewhere is refused.
func Subject(dir string, getenv func(string) string) bool {
	if ownStore(dir, getenv) {
		return false
	}
	return Checked(dir) || insideRepository(dir)
}

// insideRepository reports whether dir or a folder above it holds .git.
func insideRepository(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// CheckStore refuses dir's database unless it is missing or approved as a
// store (for init --force, which replaces the config but not the store).
func CheckStore(dir string, getenv func(string) string) error {
	if ownStore(dir, getenv) {
		return nil
	}
	approvals, err := readApprovals(getenv)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", dir, err)
	}
	return checkStore(abs, approvals, nil)
}

// Approvals lists the recorded approvals, oldest first.
func Approvals(getenv func(string) string) ([]Approval, error) { return readApprovals(getenv) }

// Revoke removes the approvals of dir's config.json and memory.db and
// returns those it removed: the project's config and store are refused
// again until approved anew.
func Revoke(dir string, getenv func(string) string) ([]Approval, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", dir, err)
	}
	approvals, err := readApprovals(getenv)
	if err != nil {
		return nil, err
	}
	var removed []Approval
	kept := slices.DeleteFunc(approvals, func(a Approval) bool {
		if filepath.Dir(a.Path) == abs {
			removed = append(removed, a)
			return true
		}
		return false
	})
	if len(removed) == 0 {
		return nil, nil
	}
	return removed, writeApprovals(kept, getenv)
}

// record writes a, replacing an older approval of the same kind and path
// and dropping those whose file is gone; an approval of a file no walk up
// checks is not written.
func record(a Approval, getenv func(string) string) error {
	if !Subject(filepath.Dir(a.Path), getenv) {
		return nil
	}
	approvals, err := readApprovals(getenv)
	if err != nil {
		return err
	}
	approvals = slices.DeleteFunc(approvals, func(old Approval) bool {
		_, err := os.Stat(old.Path)
		return (old.Kind == a.Kind && old.Path == a.Path) || errors.Is(err, os.ErrNotExist)
	})
	a.ApprovedAt = time.Now().UTC().Format(time.RFC3339)
	return writeApprovals(append(approvals, a), getenv)
}

// writeApprovals replaces the approvals file with approvals, atomically.
func writeApprovals(approvals []Approval, getenv func(string) string) error {
	path, err := ApprovalsPath(getenv)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(map[string]any{"approved": approvals}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode approvals: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("record approval: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("record approval: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("record approval: %w", err)
	}
	return nil
}

func readApprovals(getenv func(string) string) ([]Approval, error) {
	path, err := ApprovalsPath(getenv)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read approvals %s: %w", path, err)
	}
	var f struct {
		Approved []Approval `json:"approved"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("read approvals %s: %w; fix or delete the file (approvals are then asked again)", path, err)
	}
	return f.Approved, nil
}
