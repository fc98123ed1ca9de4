package sources

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/recollect/recollect/store/config"
)

// SourceReport says what one configured source sees on disk right now, so
// a copy store that matches nothing says why (a wrong cwd, a typo in home,
// subagents left out) instead of copying 0 events in silence.
type SourceReport struct {
	Kind string `json:"kind"`
	// Home is the resolved home; HomeFound and ProjectsFound say whether
	// it and its projects folder exist.
	Home      string `json:"home"`
	HomeFound bool   `json:"home_found"`
	// Projects is the folder its transcripts lie under: <home>/projects,
	// <home>/sessions for Codex, <home>/tmp for Gemini.
	Projects      string `json:"projects"`
	ProjectsFound bool   `json:"projects_found"`
	Cwd           string `json:"cwd,omitempty"`
	// ProjectFolders counts the project folders under projects (for
	// Codex, whose folders are dates, the projects its sessions record).
	ProjectFolders int `json:"project_folders"`
	// Matched counts the transcripts this source copies.
	Matched int `json:"matched"`
	// SkippedOtherCwd counts transcripts of another project (their
	// recorded cwd, or Cursor's folder, is not Cwd); OtherCwds names a few
	// of those projects. SkippedNoCwd counts Claude Code transcripts that
	// record no cwd yet. SkippedSubagent counts subagent transcripts left
	// out because include_subagents is off.
	SkippedOtherCwd int      `json:"skipped_other_cwd"`
	OtherCwds       []string `json:"other_cwds,omitempty"`
	SkippedNoCwd    int      `json:"skipped_no_cwd"`
	SkippedSubagent int      `json:"skipped_subagent"`
	// SkippedNotRegular counts names of transcripts that are not regular
	// files (a FIFO, socket or device named *.jsonl): never opened.
	SkippedNotRegular int `json:"skipped_not_regular"`
	// Unreadable counts folders that could not be listed.
	Unreadable int `json:"unreadable_folders"`
}

// maxOtherCwds bounds how many other projects a report names.
const maxOtherCwds = 3

// Diagnose walks every configured source as the copier does and reports,
// per source, what it matches and what it skips and why. It reads folder
// listings and the first lines of Claude Code transcripts, nothing else.
func Diagnose(srcs []config.Source, getenv func(string) string) ([]SourceReport, error) {
	sel, err := newSelector(srcs, getenv)
	if err != nil {
		return nil, err
	}
	out := make([]SourceReport, 0, len(sel.srcs))
	for _, src := range sel.srcs {
		r := SourceReport{Kind: src.Kind, Home: src.home, HomeFound: isDir(src.home), Projects: src.projects, ProjectsFound: isDir(src.projects), Cwd: src.Cwd}
		var l listing
		r.ProjectFolders = len(subdirs(&l, src.projects))
		// Every transcript the source could follow, before its cwd and
		// subagent rules.
		all := src
		all.Cwd, all.IncludeSubagents = "", true
		others := map[string]int{}
		for _, p := range all.candidates(&l) {
			switch {
			case !regularFile(p):
				r.SkippedNotRegular++
			case !src.structural(p):
				r.SkippedSubagent++
			case sel.wants(src, p):
				r.Matched++
			case (src.Kind == ClaudeCode || src.Kind == Codex) && sel.cwdOf(p) == "":
				r.SkippedNoCwd++
			default:
				r.SkippedOtherCwd++
				others[otherProject(src, sel, p)]++
			}
		}
		if src.Kind == Codex {
			// Codex files its sessions by date, not by project: count the
			// projects the sessions record instead of the year folders.
			projects := map[string]bool{}
			for _, p := range all.candidates(&l) {
				if c := sel.cwdOf(p); c != "" {
					projects[c] = true
				}
			}
			r.ProjectFolders = len(projects)
		}
		r.OtherCwds = topKeys(others, maxOtherCwds)
		r.Unreadable = len(l.unreadable)
		out = append(out, r)
	}
	return out, nil
}

// regularFile reports whether path (or a symlink's target) is a regular
// file; Stat never opens it, so a FIFO cannot block.
func regularFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// otherProject names the project of a transcript another cwd owns: its
// recorded cwd (Claude Code, Codex) or its folder (Cursor, Gemini).
func otherProject(src source, sel *selector, path string) string {
	if src.Kind == ClaudeCode || src.Kind == Codex {
		return sel.cwdOf(path)
	}
	rel, err := filepath.Rel(src.projects, path)
	if err != nil {
		return path
	}
	return firstElem(rel)
}

func firstElem(rel string) string {
	for i := 0; i < len(rel); i++ {
		if rel[i] == filepath.Separator {
			return rel[:i]
		}
	}
	return rel
}

// topKeys is the n keys with the largest counts, ties by name.
func topKeys(m map[string]int, n int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) > n {
		keys = keys[:n]
	}
	return keys
}

// MatchedFiles lists the transcripts the sources copy now, sorted.
func MatchedFiles(srcs []config.Source, getenv func(string) string) ([]string, error) {
	sel, err := newSelector(srcs, getenv)
	if err != nil {
		return nil, err
	}
	files, _ := sel.files()
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.path
	}
	return out, nil
}
