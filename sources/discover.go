package sources

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/regfile"
)

// ErrNotSelected means a path is not a transcript any configured source
// follows.
var ErrNotSelected = errors.New("not a transcript of any configured source")

// EnvClaudeConfigDir is Claude Code's own override of ~/.claude.
const EnvClaudeConfigDir = "CLAUDE_CONFIG_DIR"

// EnvCodexHome is Codex CLI's own override of ~/.codex.
const EnvCodexHome = "CODEX_HOME"

// source is a configured source with its home resolved.
type source struct {
	config.Source
	home     string // absolute
	projects string // <home>/projects (<home>/sessions for Codex)
}

// resolve expands each configured source's home: the configured one (with
// ~ expanded), else $CLAUDE_CONFIG_DIR or ~/.claude for Claude Code,
// ~/.cursor for Cursor, $CODEX_HOME or ~/.codex for Codex, and
// $GEMINI_CLI_HOME/.gemini or ~/.gemini for Gemini.
func resolve(srcs []config.Source, getenv func(string) string) ([]source, error) {
	out := make([]source, 0, len(srcs))
	for i, s := range srcs {
		home := s.Home
		if home == "" {
			switch s.Kind {
			case ClaudeCode:
				home = getenv(EnvClaudeConfigDir)
				if home == "" {
					home = "~/.claude"
				}
			case Cursor:
				home = "~/.cursor"
			case Codex:
				home = getenv(EnvCodexHome)
				if home == "" {
					home = "~/.codex"
				}
			case Gemini:
				home = "~/.gemini"
				if h := getenv(EnvGeminiHome); h != "" {
					home = filepath.Join(h, ".gemini")
				}
			default:
				return nil, fmt.Errorf("config.json: sources[%d].kind: unknown kind %q; known kinds: %s", i, s.Kind, strings.Join(config.SourceKinds, ", "))
			}
		}
		if home == "~" || strings.HasPrefix(home, "~/") {
			u := getenv("HOME")
			if u == "" {
				var err error
				if u, err = os.UserHomeDir(); err != nil {
					return nil, fmt.Errorf("sources[%d].home: expand %s: %w; set HOME or give an absolute home", i, home, err)
				}
			}
			home = filepath.Join(u, strings.TrimPrefix(home, "~"))
		}
		abs, err := filepath.Abs(home)
		if err != nil {
			return nil, fmt.Errorf("sources[%d].home: %w", i, err)
		}
		projects := filepath.Join(abs, "projects")
		switch s.Kind {
		case Codex:
			projects = filepath.Join(abs, "sessions")
		case Gemini:
			projects = filepath.Join(abs, "tmp")
		}
		out = append(out, source{Source: s, home: abs, projects: projects})
	}
	return out, nil
}

// selector decides which files the sources follow. It caches the cwd each
// Claude Code transcript names, since the folder name cannot be reversed.
type selector struct {
	srcs []source
	mu   sync.Mutex
	cwds map[string]string // path → first cwd found in the file
}

func newSelector(srcs []config.Source, getenv func(string) string) (*selector, error) {
	rs, err := resolve(srcs, getenv)
	if err != nil {
		return nil, err
	}
	return &selector{srcs: rs, cwds: map[string]string{}}, nil
}

// files lists every file the sources currently select, sorted and without
// duplicates, and the folders that could not be listed (permission
// denied, an I/O error). A source folder that does not exist yet selects
// nothing and is no error.
func (s *selector) files() ([]selected, []FileError) {
	seen := map[string]bool{}
	var out []selected
	var l listing
	for _, src := range s.srcs {
		for _, p := range src.candidates(&l) {
			if seen[p] {
				continue
			}
			if s.wants(src, p) {
				seen[p] = true
				out = append(out, src.selected(p))
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, l.unreadable
}

// listing gathers the folders a walk over the sources could not read.
type listing struct {
	unreadable []FileError
	seen       map[string]bool
}

// readDir lists dir. A folder that vanished is no error; one that exists
// but cannot be read is noted once per walk (its entries read before the
// error are still returned).
func (l *listing) readDir(dir string) []os.DirEntry {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) && !l.seen[dir] {
		if l.seen == nil {
			l.seen = map[string]bool{}
		}
		l.seen[dir] = true
		l.unreadable = append(l.unreadable, *fileError(dir, fmt.Errorf("list folder: %w", err)))
	}
	return entries
}

// selected is a transcript file and the kind of source that follows it.
type selected struct {
	path, kind string
	// identity names the file for deduplication: the kind and the path
	// below the projects folder, so a home that moves (a new
	// CLAUDE_CONFIG_DIR, a synced machine) does not copy its lines again.
	identity string
}

func (src source) selected(path string) selected {
	rel, err := filepath.Rel(src.projects, path)
	if err != nil {
		rel = path
	}
	return selected{path: path, kind: src.Kind, identity: src.Kind + ":" + filepath.ToSlash(rel)}
}

// match finds the source that selects path, or explains why none does.
func (s *selector) match(path string) (selected, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return selected{}, fmt.Errorf("%s: %w", path, err)
	}
	var under []string
	for _, src := range s.srcs {
		if !src.structural(abs) {
			continue
		}
		under = append(under, src.Kind)
		if s.wants(src, abs) {
			return src.selected(abs), nil
		}
	}
	if len(under) > 0 {
		return selected{}, fmt.Errorf("%s: %w: its project does not match the configured cwd of the %s source", abs, ErrNotSelected, strings.Join(under, ", "))
	}
	homes := make([]string, 0, len(s.srcs))
	for _, src := range s.srcs {
		homes = append(homes, src.Kind+" "+src.projects)
	}
	if len(homes) == 0 {
		return selected{}, fmt.Errorf("%s: %w: no source is configured; add one to sources in config.json", abs, ErrNotSelected)
	}
	return selected{}, fmt.Errorf("%s: %w (sources follow %s); add a source for it in config.json", abs, ErrNotSelected, strings.Join(homes, ", "))
}

// wants applies the cwd filter to a structurally valid file.
func (s *selector) wants(src source, path string) bool {
	if src.Cwd == "" {
		return true
	}
	if src.Kind == Gemini {
		root, hash := s.geminiProjectOf(src, path)
		return geminiMatches(root, hash, src.Cwd)
	}
	if src.Kind == Cursor {
		rel, err := filepath.Rel(src.projects, path)
		if err != nil {
			return false
		}
		slug := strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]
		return strings.EqualFold(slug, CursorSlug(src.Cwd))
	}
	cwd := s.cwdOf(path)
	if cwd == "" {
		return false
	}
	return CwdWithin(cwd, src.Cwd)
}

// CwdWithin reports whether the transcript cwd is the directory want or
// lies under it. Windows paths (a drive letter, a UNC \\server\share, or
// backslashes) compare as Windows does: case-insensitively, with / and \
// alike. Whichever platform reads the store, a transcript copied from a
// Windows machine matches there.
func CwdWithin(cwd, want string) bool {
	if windowsPath(cwd) || windowsPath(want) {
		cwd, want = foldWindows(cwd), foldWindows(want)
		prefix := want
		if !strings.HasSuffix(prefix, `\`) {
			prefix += `\`
		}
		return cwd == want || strings.HasPrefix(cwd, prefix)
	}
	want = filepath.Clean(want)
	cwd = filepath.Clean(cwd)
	return cwd == want || strings.HasPrefix(cwd, want+string(filepath.Separator))
}

// windowsPath reports whether p is spelled as a Windows path.
func windowsPath(p string) bool {
	return len(p) >= 2 && p[1] == ':' && unicode.IsLetter(rune(p[0])) || strings.Contains(p, `\`)
}

// foldWindows spells a Windows path one way: backslashes, no trailing
// separator (but a drive's root keeps its own), lower case.
func foldWindows(p string) string {
	p = strings.ToLower(strings.ReplaceAll(p, "/", `\`))
	for len(p) > 3 && strings.HasSuffix(p, `\`) {
		p = p[:len(p)-1]
	}
	return p
}

// cwdOf returns the first cwd recorded in a Claude Code transcript. Only
// a found cwd is cached: a file that has none yet is read again later.
func (s *selector) cwdOf(path string) string {
	s.mu.Lock()
	c, ok := s.cwds[path]
	s.mu.Unlock()
	if ok {
		return c
	}
	c = firstCwd(path)
	if c != "" {
		s.mu.Lock()
		s.cwds[path] = c
		s.mu.Unlock()
	}
	return c
}

// firstCwd scans the first lines of a transcript for a cwd field: at the
// top level (Claude Code) or in the payload (Codex's session_meta), or in
// the environment context of a legacy Codex rollout's first user item.
func firstCwd(path string) string {
	f, _, err := regfile.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.LimitReader(f, 4<<20), 64<<10)
	for range 200 {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			var rec struct {
				Cwd     string `json:"cwd"`
				Payload struct {
					Cwd string `json:"cwd"`
				} `json:"payload"`
				Type    string          `json:"type"`
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			}
			if json.Unmarshal(line, &rec) == nil && rec.Cwd != "" {
				return rec.Cwd
			}
			if rec.Payload.Cwd != "" {
				return rec.Payload.Cwd
			}
			if rec.Type == "message" && rec.Role == "user" {
				if cwd := environmentCwd(codexContentText(rec.Content)); cwd != "" {
					return cwd
				}
			}
		}
		if err != nil {
			return ""
		}
	}
	return ""
}

// ClaudeFolder is the folder name Claude Code gives a project: the cwd
// with every non-alphanumeric character replaced by '-'. It is lossy, so
// recollect never reverses it; it is used only to build test layouts.
func ClaudeFolder(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '-'
	}, cwd)
}

// CursorSlug is the folder name Cursor gives a project: runs of
// non-alphanumerics collapsed to one '-', trimmed at both ends.
func CursorSlug(cwd string) string {
	var b strings.Builder
	dash := false
	for _, r := range cwd {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
			dash = false
			continue
		}
		if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// isTranscriptName reports whether a file name can be a transcript: JSONL,
// or JSON (Gemini CLI's older chats).
func isTranscriptName(name string) bool {
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json")
}

func isAgentFile(name string) bool { return strings.HasPrefix(name, "agent-") }

// isCompactionWorker is the transcript of Claude Code's compaction
// worker: it restates the conversation and is never copied.
func isCompactionWorker(name string) bool { return strings.HasPrefix(name, "agent-acompact-") }

// structural reports whether path sits where this source keeps
// transcripts, with the subagent rules applied.
func (src source) structural(path string) bool {
	rel, err := filepath.Rel(src.projects, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") || !isTranscriptName(path) {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	name := parts[len(parts)-1]
	if isCompactionWorker(name) || (src.Kind != Gemini && !strings.HasSuffix(name, ".jsonl")) {
		return false
	}
	switch src.Kind {
	case ClaudeCode:
		switch len(parts) {
		case 2: // <folder>/<session>.jsonl or legacy <folder>/agent-<id>.jsonl
			return !isAgentFile(name) || src.IncludeSubagents
		case 4: // <folder>/<session>/subagents/agent-<id>.jsonl
			return parts[2] == "subagents" && isAgentFile(name) && src.IncludeSubagents
		}
	case Cursor:
		if len(parts) < 3 || parts[1] != "agent-transcripts" {
			return false
		}
		switch len(parts) {
		case 3: // <slug>/agent-transcripts/<uuid>.jsonl (older flat layout)
			return true
		case 4: // <slug>/agent-transcripts/<uuid>/<uuid>.jsonl
			return true
		case 5: // <slug>/agent-transcripts/<uuid>/subagents/<uuid>.jsonl
			return parts[3] == "subagents" && src.IncludeSubagents
		}
	case Codex: // sessions/YYYY/MM/DD/rollout-<local time>-<uuid>.jsonl
		return len(parts) == 4 && strings.HasPrefix(name, "rollout-")
	case Gemini:
		if len(parts) < 3 || parts[1] != "chats" {
			return false
		}
		switch len(parts) {
		case 3: // <project>/chats/session-<time>-<id>.json or .jsonl
			return strings.HasPrefix(name, "session-")
		case 4: // <project>/chats/<parent session>/<session>.json[l]
			return src.IncludeSubagents
		}
	}
	return false
}

// candidates lists the structurally valid files under the source's
// projects folder, before the cwd filter.
func (src source) candidates(l *listing) []string {
	var out []string
	for _, d := range src.dirs(l) {
		for _, e := range l.readDir(d) {
			if e.IsDir() || !isTranscriptName(e.Name()) {
				continue
			}
			if p := filepath.Join(d, e.Name()); src.structural(p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// dirs lists the existing folders that can hold this source's transcripts
// (the projects folder itself included): what the watcher watches.
func (src source) dirs(l *listing) []string {
	out := []string{}
	if !isDir(src.projects) {
		return out
	}
	out = append(out, src.projects)
	slugWant := ""
	if src.Kind == Cursor && src.Cwd != "" {
		slugWant = CursorSlug(src.Cwd)
	}
	for _, proj := range subdirs(l, src.projects) {
		if slugWant != "" && !strings.EqualFold(filepath.Base(proj), slugWant) {
			continue
		}
		out = append(out, proj)
		switch src.Kind {
		case Gemini:
			chats := filepath.Join(proj, "chats")
			if !isDir(chats) {
				continue
			}
			out = append(out, chats)
			if src.IncludeSubagents {
				out = append(out, subdirs(l, chats)...)
			}
		case Codex: // year → month → day folders
			for _, month := range subdirs(l, proj) {
				out = append(out, month)
				out = append(out, subdirs(l, month)...)
			}
		case ClaudeCode:
			if !src.IncludeSubagents {
				continue
			}
			for _, sess := range subdirs(l, proj) {
				out = append(out, sess)
				if sub := filepath.Join(sess, "subagents"); isDir(sub) {
					out = append(out, sub)
				}
			}
		case Cursor:
			at := filepath.Join(proj, "agent-transcripts")
			if !isDir(at) {
				continue
			}
			out = append(out, at)
			for _, conv := range subdirs(l, at) {
				out = append(out, conv)
				if sub := filepath.Join(conv, "subagents"); src.IncludeSubagents && isDir(sub) {
					out = append(out, sub)
				}
			}
		}
	}
	return out
}

// waitDir is the nearest existing ancestor of the projects folder, watched
// so that a source whose folder does not exist yet is noticed when it
// appears.
func (src source) waitDir() string {
	d := src.projects
	for !isDir(d) {
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
	return d
}

func subdirs(l *listing, dir string) []string {
	var out []string
	for _, e := range l.readDir(dir) {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
