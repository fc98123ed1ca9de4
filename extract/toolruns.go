package extract

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/recollect/recollect/store"
)

// A failing build or test run, the edits after it and the same run
// passing are a fix the transcript shows without anyone writing it down:
// "`mix test …` failed with "undefined function get/2"; fixed by editing
// test/…_test.exs". runFixes reads them from a group's tool calls and
// results. A run that failed and was never run again, or passed without
// an edit in between (a flaky run, a server that was not up), gives
// nothing.

// shellRun is one shell tool call and what became of it.
type shellRun struct {
	callSeq, resultSeq int64
	command, key       string
	failed             bool
	errLine            string
}

// failure is a run that failed and waits for the same run to pass.
type failure struct {
	run   shellRun
	edits []string
}

// runFixes reads the fixes a group's tool events show.
func runFixes(tools []store.Event, cwd string) []Candidate {
	project := projectLabel(cwd)
	calls := map[string]store.Event{}
	pending := map[string]*failure{}
	var out []Candidate
	for _, ev := range tools {
		switch ev.EventType {
		case "tool_call":
			id := toolUseID(ev)
			if id != "" {
				calls[id] = ev
			}
			for _, f := range editedFiles(ev.Content, cwd) {
				for _, fl := range pending {
					if !containsString(fl.edits, f) {
						fl.edits = append(fl.edits, f)
					}
				}
			}
		case "tool_result":
			call, ok := calls[toolUseID(ev)]
			if !ok {
				continue
			}
			cmd := shellCommand(call.Content)
			key := runKey(cmd)
			if key == "" {
				continue
			}
			failed, errLine := runOutcome(ev)
			if failed {
				// The latest failure is the one the next passing run fixed.
				pending[key] = &failure{run: shellRun{callSeq: call.Seq, resultSeq: ev.Seq, command: cmd, key: key, failed: true, errLine: errLine}}
				continue
			}
			fl, ok := pending[key]
			if !ok {
				continue
			}
			delete(pending, key)
			if len(fl.edits) == 0 || fl.run.errLine == "" {
				continue
			}
			files := fl.edits
			if len(files) > 4 {
				files = append(files[:4:4], "…")
			}
			content := subjectPrefix(project) + "`" + capLen(fl.run.key, 120) + "` failed with \"" + fl.run.errLine +
				"\"; fixed by editing " + strings.Join(files, ", ") + ", after which it passed."
			out = append(out, Candidate{Content: content, Kind: store.KindFix, Confidence: 0.55, Importance: kindImportance(store.KindFix),
				EventIDs: []int64{fl.run.resultSeq, ev.Seq}, SpeakerRole: "assistant"})
		}
	}
	return out
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// toolUseID is the id that pairs a tool call with its result.
func toolUseID(ev store.Event) string {
	var meta struct {
		ID string `json:"tool_use_id"`
	}
	_ = json.Unmarshal(ev.Metadata, &meta)
	return meta.ID
}

var (
	// Build, test, lint and type-check commands: the runs whose failure and
	// later success mean something was fixed.
	checkCmdRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(go (test|build|vet)|cargo (test|build|check|clippy)|npm (test|run \S+)|pnpm (test|run \S+|\S+)|yarn (test|\S+)|npx (tsc|jest|vitest|eslint)|tsc|jest|vitest|eslint|pytest|python3? -m (pytest|unittest|mypy)|mypy|ruff|uv run \S+|poetry run \S+|mix (test|compile|credo|format)|make( \S+)?|gradle \S+|\./gradlew \S+|mvn \S+|dotnet (build|test)|bundle exec \S+|rspec|rake \S+|swift (build|test)|cmake --build|ctest|zig build)`)
	})
	redirectRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s\d*(>>?|<)&?\d*\S*`) })
	envPrefixRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Z_][A-Z0-9_]*=\S*\s+)+`) })
	exitCodeRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Exit code (\d+)`) })
	errorLineRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(error|exception|cannot|undefined|not found|no such|panic|failed|failure|traceback|expected)\b`)
	})
	noErrorLineRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b0 (failures|failed|errors)\b|^exit code|^\s*$`)
	})
	ansiRe      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\x1b\\[[0-9;?]*[ -/]*[@-~]") })
	patchFileRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\*\*\* (?:Update|Add) File: (\S+)`) })
)

// runKey is what makes two runs the same: the check command with its
// first argument, leading env assignments and "cd dir &&" dropped, cut
// at a pipe or redirection. "" for a command that is not a check.
func runKey(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	for {
		i := strings.Index(cmd, "&&")
		if i < 0 || !strings.HasPrefix(cmd, "cd ") {
			break
		}
		cmd = strings.TrimSpace(cmd[i+2:])
	}
	cmd = redirectRe().ReplaceAllString(cmd, "")
	if j := strings.IndexAny(cmd, "|;&>"); j >= 0 {
		cmd = cmd[:j]
	}
	cmd = envPrefixRe().ReplaceAllString(strings.TrimSpace(cmd), "")
	if !checkCmdRe().MatchString(cmd) {
		return ""
	}
	return strings.Join(strings.Fields(cmd), " ")
}

// runOutcome says whether a shell result failed, and its first error line.
func runOutcome(ev store.Event) (failed bool, errLine string) {
	var meta struct {
		IsError bool `json:"is_error"`
	}
	_ = json.Unmarshal(ev.Metadata, &meta)
	text := ev.Content
	// Codex wraps the output: {"output": "…", "metadata": {"exit_code": N}}.
	var wrapped struct {
		Output   string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(strings.TrimSpace(text), "{") && json.Unmarshal([]byte(text), &wrapped) == nil && wrapped.Metadata.ExitCode != nil {
		text = wrapped.Output
		failed = *wrapped.Metadata.ExitCode != 0
	}
	if m := exitCodeRe().FindStringSubmatch(text); m != nil {
		if n, _ := strconv.Atoi(m[1]); n != 0 {
			failed = true
		}
	}
	failed = failed || meta.IsError
	if !failed {
		return false, ""
	}
	// The most telling line: a compiler's or runtime's error, else the
	// name of the first failing test, else any line that reads as an error.
	best, rank := "", 0
	for _, line := range strings.Split(ansiRe().ReplaceAllString(text, ""), "\n") {
		line = strings.TrimSpace(line)
		if noErrorLineRe().MatchString(line) {
			continue
		}
		r := 0
		switch {
		case hardErrorRe().MatchString(line):
			r = 3
		case failingTestRe().MatchString(line):
			r = 2
		case errorLineRe().MatchString(line):
			r = 1
		}
		if r > rank {
			best, rank = line, r
		}
		if rank == 3 {
			break
		}
	}
	if best == "" {
		return true, ""
	}
	return true, capLen(strings.ReplaceAll(best, `"`, "'"), 160)
}

var (
	hardErrorRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(\*\* \(|error(\[[^\]]*\])?:|fatal error:|panic:|\S+\.\w+:\d+(:\d+)?: (error|undefined)|\w*(Error|Exception): |E\d{4}|TS\d{4}:)|\berror TS\d+:`)
	})
	failingTestRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d+\) test |--- FAIL: |FAILED \S+::|FAIL \S+|✕ |● )`)
	})
)

// editedFiles lists the files an edit tool call changes: Claude Code's
// Edit, MultiEdit and Write (file_path), and Codex's apply_patch (inside a
// shell call or its own tool).
func editedFiles(content, cwd string) []string {
	var call struct {
		Name  string `json:"name"`
		Input struct {
			FilePath string `json:"file_path"`
			Path     string `json:"path"`
		} `json:"input"`
	}
	if json.Unmarshal([]byte(content), &call) != nil {
		return nil
	}
	switch call.Name {
	case "Edit", "MultiEdit", "Write", "NotebookEdit", "edit_file", "write_file", "replace":
		p := call.Input.FilePath
		if p == "" {
			p = call.Input.Path
		}
		if p != "" {
			return []string{shortPath(p, cwd)}
		}
		return nil
	}
	var out []string
	for _, m := range patchFileRe().FindAllStringSubmatch(strings.ReplaceAll(content, `\n`, "\n"), -1) {
		out = append(out, shortPath(m[1], cwd))
	}
	return out
}

// shortPath is a path relative to the project's directory when it lies
// inside it, else from the project's usual roots on (lib/x.ex, src/y.go):
// what a person would type.
func shortPath(p, cwd string) string {
	if cwd != "" && strings.HasPrefix(p, strings.TrimRight(cwd, "/")+"/") {
		return p[len(strings.TrimRight(cwd, "/"))+1:]
	}
	for _, root := range []string{"/lib/", "/src/", "/test/", "/tests/", "/cmd/", "/pkg/", "/internal/", "/app/", "/config/", "/priv/", "/assets/"} {
		if i := strings.LastIndex(p, root); i > 0 {
			return p[i+1:]
		}
	}
	return p
}
