package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recollect/recollect/store/jsonedit"
)

// CursorHooksFile is Cursor's hooks file name, in a project's .cursor/ or
// the user's ~/.cursor/.
const CursorHooksFile = "hooks.json"

// CursorStopEvent is Cursor's event when the agent loop ends: the moment
// recollect asks the daemon whether enough is waiting to consolidate.
const CursorStopEvent = "stop"

// CursorProjectHooks is the hooks file of the project in dir.
func CursorProjectHooks(dir string) string { return filepath.Join(dir, ".cursor", CursorHooksFile) }

// CursorUserHooks is the user's Cursor hooks file, ~/.cursor/hooks.json.
func CursorUserHooks(getenv func(string) string) (string, error) {
	home, err := homeDir(getenv, "use --project DIR instead")
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".cursor", CursorHooksFile), nil
}

// ThresholdCommand is the shell command Cursor's stop hook runs: binary is
// recollect-notify (`recollect-notify threshold`) or recollect (`recollect
// notify threshold`).
func ThresholdCommand(binary, dataDir string) string {
	if filepath.Base(binary) == NotifyBinaryName {
		return fmt.Sprintf("%s threshold --data %s", commandArg(binary), commandArg(dataDir))
	}
	return fmt.Sprintf("%s notify threshold --data %s", commandArg(binary), commandArg(dataDir))
}

// CursorSnippet is Cursor's hooks.json with the stop hook alone, for
// people who edit the file by hand: what Cursor writes into a new file.
func CursorSnippet(binary, dataDir string) string {
	b, _, _ := MergeCursorHooks(nil, binary, dataDir)
	return strings.TrimSuffix(string(b), "\n")
}

// Cursor merges the stop hook into Cursor's hooks file at path, as
// Claude does for Claude Code: every other key and hook kept in order, run
// twice it changes nothing, an earlier recollect threshold entry is
// replaced in place, and the original is copied to a timestamped backup
// first.
func Cursor(path, binary, dataDir string, now time.Time) (Result, error) {
	res := Result{Path: path}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, fmt.Errorf("read %s: %w", path, err)
	}
	merged, action, err := MergeCursorHooks(old, binary, dataDir)
	if err != nil {
		return res, fmt.Errorf("%s: %w; fix the file or paste the entry from `recollect hooks print --cursor` by hand", path, err)
	}
	res.Action = action
	if action == "unchanged" {
		return res, nil
	}
	return res, replaceFile(path, old, merged, now, &res)
}

// replaceFile writes data to path through a temporary file and a rename,
// after copying old (nil for a new file) to a timestamped backup that
// never replaces an earlier one (see writeBackup).
func replaceFile(path string, old, data []byte, now time.Time, res *Result) error {
	mode := os.FileMode(0o644)
	if old != nil {
		fi, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("stat %s: %w", path, err)
		}
		mode = fi.Mode().Perm()
		if res.Backup, err = writeBackup(path, old, mode, now); err != nil {
			return err
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	tmp := path + ".recollect-tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return nil
}

// MergeCursorHooks returns Cursor's hooks file (its bytes, empty for none)
// with the stop hook merged in, and the action taken: "installed",
// "updated" or "unchanged". Like MergeEntry it splices into the original
// bytes, so every other key, hook and line stays as it was; an earlier
// recollect threshold entry keeps its other keys (timeout, loop_limit) and
// gets the new command. A file without a version gets version 1, the
// format's only one.
func MergeCursorHooks(data []byte, binary, dataDir string) ([]byte, string, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{\n  \"version\": 1\n}\n")
	}
	want := ThresholdCommand(binary, dataDir)
	top, err := jsonedit.Scan(data, jsonedit.FirstNonSpace(data), '{', "hooks.json")
	if err != nil {
		return nil, "", err
	}
	if err := jsonedit.TrailingData(data, top.Close, "hooks.json"); err != nil {
		return nil, "", err
	}
	if v, ok := top.Find("version"); ok {
		var n float64
		if json.Unmarshal(data[v.Start:v.End], &n) != nil || n != 1 {
			return nil, "", fmt.Errorf("version is %s; recollect writes Cursor's hooks format version 1", data[v.Start:v.End])
		}
	}
	merged, action, err := mergeStop(data, top, want)
	if err != nil || action == "unchanged" {
		return merged, action, err
	}
	if _, ok := top.Find("version"); !ok {
		if top, err = jsonedit.Scan(merged, jsonedit.FirstNonSpace(merged), '{', "hooks.json"); err != nil {
			return nil, "", err
		}
		merged = jsonedit.Insert(merged, top, "version", 1)
	}
	return merged, action, nil
}

// mergeStop puts the threshold command want into the stop hooks of the
// file data, whose top object is top.
func mergeStop(data []byte, top jsonedit.Container, want string) ([]byte, string, error) {
	entry := map[string]string{"command": want}
	hooksM, ok := top.Find("hooks")
	if !ok {
		return jsonedit.Insert(data, top, "hooks", map[string]any{CursorStopEvent: []any{entry}}), "installed", nil
	}
	events, err := jsonedit.Scan(data, hooksM.Start, '{', "hooks")
	if err != nil {
		return nil, "", err
	}
	stopM, ok := events.Find(CursorStopEvent)
	if !ok {
		return jsonedit.Insert(data, events, CursorStopEvent, []any{entry}), "installed", nil
	}
	list, err := jsonedit.Scan(data, stopM.Start, '[', "hooks.stop")
	if err != nil {
		return nil, "", errors.New("hooks.stop is not a list of hooks")
	}
	for i, el := range list.Elems {
		h, err := jsonedit.Scan(data, el.Start, '{', fmt.Sprintf("hooks.stop[%d]", i))
		if err != nil {
			return nil, "", fmt.Errorf("hooks.stop[%d] is not an object", i)
		}
		cmdM, ok := h.Find("command")
		var cmd string
		if !ok || json.Unmarshal(data[cmdM.Start:cmdM.End], &cmd) != nil || !isThresholdCommand(cmd) {
			continue
		}
		if cmd == want {
			return data, "unchanged", nil
		}
		return jsonedit.Replace(data, h, cmdM, want), "updated", nil
	}
	return jsonedit.Insert(data, list, "", entry), "installed", nil
}

// isThresholdCommand reports whether cmd runs some recollect's notify
// threshold, whatever the binary path or data directory.
func isThresholdCommand(cmd string) bool {
	bin, rest := firstWord(strings.TrimSpace(cmd))
	fields := strings.Fields(rest)
	base := filepath.Base(bin)
	if base == NotifyBinaryName {
		return len(fields) >= 1 && fields[0] == "threshold"
	}
	return strings.HasPrefix(base, "recollect") && len(fields) >= 2 && fields[0] == "notify" && fields[1] == "threshold"
}

// CursorMCPFile is Cursor's MCP servers file, beside its hooks file.
const CursorMCPFile = "mcp.json"

// CursorMCP merges the MCP server entry name (recollect mcp --data
// dataDir) into Cursor's mcp.json at path, as Cursor merges the
// stop hook: every other server, key and byte kept, run twice it changes
// nothing, an earlier entry of that name or one running some recollect's
// mcp on the same store is replaced in place, a backup first.
func CursorMCP(path, name, binary, dataDir string, now time.Time) (Result, error) {
	res := Result{Path: path}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, fmt.Errorf("read %s: %w", path, err)
	}
	merged, action, err := MergeCursorMCP(old, name, binary, dataDir)
	if err != nil {
		return res, fmt.Errorf("%s: %w; fix the file or paste the entry from `recollect hooks print --cursor` by hand", path, err)
	}
	res.Action = action
	if action == "unchanged" {
		return res, nil
	}
	return res, replaceFile(path, old, merged, now, &res)
}

// MergeCursorMCP returns Cursor's mcp.json (its bytes, empty for none)
// with the server entry merged into mcpServers, and the action taken:
// "installed", "updated" or "unchanged".
func MergeCursorMCP(data []byte, name, binary, dataDir string) ([]byte, string, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	top, err := jsonedit.Scan(data, jsonedit.FirstNonSpace(data), '{', "mcp.json")
	if err != nil {
		return nil, "", err
	}
	if err := jsonedit.TrailingData(data, top.Close, "mcp.json"); err != nil {
		return nil, "", err
	}
	want := mcpServer{Command: binary, Args: []string{"mcp", "--data", dataDir}}
	key := name
	if serversM, ok := top.Find("mcpServers"); ok {
		servers, err := jsonedit.Scan(data, serversM.Start, '{', "mcpServers")
		if err != nil {
			return nil, "", err
		}
		var all map[string]mcpServer
		if err := json.Unmarshal(data[serversM.Start:serversM.End], &all); err != nil {
			return nil, "", fmt.Errorf("mcpServers: %w", err)
		}
		if _, ok := servers.Find(name); !ok {
			for k, s := range all {
				if s.runsRecollectOn(dataDir) {
					key = k // the same store under another name: updated in place
				}
			}
		}
		if have, ok := all[key]; ok && have.Command == want.Command && slices.Equal(have.Args, want.Args) {
			return data, "unchanged", nil
		}
		if _, ok := all[key]; ok {
			out, err := jsonedit.Set(data, []string{"mcpServers", key}, want)
			return out, "updated", err
		}
	}
	out, err := jsonedit.Set(data, []string{"mcpServers", key}, want)
	return out, "installed", err
}

// mcpServer is one entry of an MCP client's mcpServers.
type mcpServer struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// runsRecollectOn reports whether s runs some recollect's MCP server on
// the store dataDir.
func (s mcpServer) runsRecollectOn(dataDir string) bool {
	return strings.HasPrefix(filepath.Base(s.Command), "recollect") && slices.Equal(s.Args, []string{"mcp", "--data", dataDir})
}
