package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// SettingsFile is Claude Code's settings file name.
const SettingsFile = "settings.json"

// ProjectSettings is the settings file of the project in dir.
func ProjectSettings(dir string) string { return filepath.Join(dir, ".claude", SettingsFile) }

// UserSettings is the user's Claude Code settings file: under
// $CLAUDE_CONFIG_DIR when set, else ~/.claude.
func UserSettings(getenv func(string) string) (string, error) {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, SettingsFile), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find home directory: %w; use --project DIR instead", err)
		}
		home = h
	}
	return filepath.Join(home, ".claude", SettingsFile), nil
}

// InstallResult says what Install did to a settings file.
type InstallResult struct {
	Path string
	// Action is "installed", "updated" (an older recollect entry was
	// replaced) or "unchanged".
	Action string
	// Backup is the copy written before the change, "" when the file was
	// new or left unchanged.
	Backup string
}

// Install merges the PreCompact notify hook into the settings file at path,
// keeping every other key and hook in their order. Run twice it changes
// nothing; an earlier recollect notify entry (another binary or data
// directory) is replaced in place. The original is copied to a timestamped
// backup before it is rewritten. now names the backup.
func Install(path, binary, dataDir string, now time.Time) (InstallResult, error) {
	res := InstallResult{Path: path}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, fmt.Errorf("read %s: %w", path, err)
	}
	merged, action, err := MergeSettings(old, binary, dataDir)
	if err != nil {
		return res, fmt.Errorf("%s: %w; fix the file or paste the entry from `recollect hooks print` by hand", path, err)
	}
	res.Action = action
	if action == "unchanged" {
		return res, nil
	}
	mode := os.FileMode(0o644)
	if old != nil {
		fi, err := os.Stat(path)
		if err != nil {
			return res, fmt.Errorf("stat %s: %w", path, err)
		}
		mode = fi.Mode().Perm()
		res.Backup = path + ".bak-" + now.UTC().Format("20060102T150405Z")
		if err := os.WriteFile(res.Backup, old, mode); err != nil {
			return res, fmt.Errorf("write backup %s: %w", res.Backup, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return res, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	tmp := path + ".recollect-tmp"
	if err := os.WriteFile(tmp, merged, mode); err != nil {
		return res, fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return res, fmt.Errorf("replace %s: %w", path, err)
	}
	return res, nil
}

// MergeSettings returns settings (the bytes of a settings.json, empty for
// none) with the notify hook merged in, and the action taken.
func MergeSettings(settings []byte, binary, dataDir string) ([]byte, string, error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		settings = []byte("{}")
	}
	top, err := decodeObject(settings, "settings")
	if err != nil {
		return nil, "", err
	}
	hooksObj := object{}
	if raw, ok := top.get("hooks"); ok {
		if hooksObj, err = decodeObject(raw, "hooks"); err != nil {
			return nil, "", err
		}
	}
	var groups []json.RawMessage
	if raw, ok := hooksObj.get("PreCompact"); ok {
		if err := json.Unmarshal(raw, &groups); err != nil {
			return nil, "", errors.New("hooks.PreCompact is not a list of matcher groups")
		}
	}
	want := PreCompactEntry(binary, dataDir)[0].(map[string]any)
	wantHook := want["hooks"].([]any)[0].(map[string]any)
	groups, action, err := mergeGroups(groups, want, wantHook, filepath.Base(binary))
	if err != nil {
		return nil, "", err
	}
	if action == "unchanged" {
		return settings, action, nil
	}
	pre, err := json.Marshal(groups)
	if err != nil {
		return nil, "", fmt.Errorf("encode hooks.PreCompact: %w", err)
	}
	hooksObj.set("PreCompact", pre)
	top.set("hooks", hooksObj.encode())
	var out bytes.Buffer
	if err := json.Indent(&out, top.encode(), "", "  "); err != nil {
		return nil, "", fmt.Errorf("format settings: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), action, nil
}

// mergeGroups finds an existing recollect notify hook among the PreCompact
// matcher groups and brings it up to date, or appends a new group.
func mergeGroups(groups []json.RawMessage, want, wantHook map[string]any, binName string) ([]json.RawMessage, string, error) {
	for gi, raw := range groups {
		var group map[string]any
		if err := json.Unmarshal(raw, &group); err != nil {
			return nil, "", fmt.Errorf("hooks.PreCompact[%d] is not an object", gi)
		}
		list, _ := group["hooks"].([]any)
		for hi, h := range list {
			hook, _ := h.(map[string]any)
			cmd, _ := hook["command"].(string)
			if !isNotifyCommand(cmd, binName) {
				continue
			}
			timeout, _ := hook["timeout"].(float64)
			if cmd == wantHook["command"] && int(timeout) == HookTimeoutSeconds && hook["type"] == "command" {
				return groups, "unchanged", nil
			}
			list[hi] = wantHook
			group["hooks"] = list
			b, err := json.Marshal(group)
			if err != nil {
				return nil, "", fmt.Errorf("encode hooks.PreCompact[%d]: %w", gi, err)
			}
			groups[gi] = b
			return groups, "updated", nil
		}
	}
	b, err := json.Marshal(want)
	if err != nil {
		return nil, "", fmt.Errorf("encode PreCompact entry: %w", err)
	}
	return append(groups, b), "installed", nil
}

// isNotifyCommand reports whether cmd runs some recollect's notify
// compaction, whatever the binary path or data directory: a binary named
// like this one (binName) or named recollect-something running `notify
// compaction`, or recollect-notify running `compaction`.
func isNotifyCommand(cmd, binName string) bool {
	bin, rest := firstWord(strings.TrimSpace(cmd))
	fields := strings.Fields(rest)
	base := filepath.Base(bin)
	if base == NotifyBinaryName && len(fields) >= 1 && fields[0] == "compaction" {
		return true
	}
	return (base == binName || strings.HasPrefix(base, "recollect")) && len(fields) >= 2 && fields[0] == "notify" && fields[1] == "compaction"
}

// firstWord splits a shell command after its first word, which may be
// single- or double-quoted (as NotifyCommand quotes a path with spaces).
func firstWord(cmd string) (word, rest string) {
	if cmd != "" && (cmd[0] == '\'' || cmd[0] == '"') {
		if end := strings.IndexByte(cmd[1:], cmd[0]); end >= 0 {
			return cmd[1 : end+1], cmd[end+2:]
		}
	}
	word, rest, _ = strings.Cut(cmd, " ")
	return word, rest
}

// object is a JSON object that keeps its keys in their original order.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func decodeObject(data []byte, what string) (object, error) {
	o := object{vals: map[string]json.RawMessage{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return o, fmt.Errorf("%s is not valid JSON: %w", what, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return o, fmt.Errorf("%s is not a JSON object", what)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return o, fmt.Errorf("%s is not valid JSON: %w", what, err)
		}
		key := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return o, fmt.Errorf("%s.%s is not valid JSON: %w", what, key, err)
		}
		o.set(key, val)
	}
	if _, err := dec.Token(); err != nil {
		return o, fmt.Errorf("%s is not valid JSON: %w", what, err)
	}
	if _, err := dec.Token(); err == nil {
		return o, fmt.Errorf("%s has data after its closing brace", what)
	}
	return o, nil
}

func (o *object) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *object) set(k string, v json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) encode() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}
