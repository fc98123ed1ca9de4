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
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find home directory: %w; use --project DIR instead", err)
		}
		home = h
	}
	return filepath.Join(home, ".cursor", CursorHooksFile), nil
}

// ThresholdCommand is the shell command Cursor's stop hook runs: binary is
// recollect-notify (`recollect-notify threshold`) or recollect (`recollect
// notify threshold`).
func ThresholdCommand(binary, dataDir string) string {
	if filepath.Base(binary) == NotifyBinaryName {
		return fmt.Sprintf("%s threshold --data %s", shellQuote(binary), shellQuote(dataDir))
	}
	return fmt.Sprintf("%s notify threshold --data %s", shellQuote(binary), shellQuote(dataDir))
}

// CursorSnippet is Cursor's hooks.json with the stop hook alone, for
// people who edit the file by hand.
func CursorSnippet(binary, dataDir string) string {
	b, _ := json.MarshalIndent(map[string]any{
		"version": 1,
		"hooks":   map[string]any{CursorStopEvent: []any{map[string]any{"command": ThresholdCommand(binary, dataDir)}}},
	}, "", "  ")
	return string(b)
}

// InstallCursor merges the stop hook into Cursor's hooks file at path, as
// Install does for Claude Code: every other key and hook kept in order, run
// twice it changes nothing, an earlier recollect threshold entry is
// replaced in place, and the original is copied to a timestamped backup
// first.
func InstallCursor(path, binary, dataDir string, now time.Time) (InstallResult, error) {
	res := InstallResult{Path: path}
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
// after copying old (nil for a new file) to a timestamped backup.
func replaceFile(path string, old, data []byte, now time.Time, res *InstallResult) error {
	mode := os.FileMode(0o644)
	if old != nil {
		fi, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("stat %s: %w", path, err)
		}
		mode = fi.Mode().Perm()
		res.Backup = path + ".bak-" + now.UTC().Format("20060102T150405Z")
		if err := os.WriteFile(res.Backup, old, mode); err != nil {
			return fmt.Errorf("write backup %s: %w", res.Backup, err)
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
// "updated" or "unchanged". A file without a version gets version 1, the
// format's only one.
func MergeCursorHooks(data []byte, binary, dataDir string) ([]byte, string, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	top, err := readOrdered(data, "")
	if err != nil {
		return nil, "", err
	}
	if raw, ok := top.get("version"); ok {
		var v float64
		if json.Unmarshal(raw, &v) != nil || v != 1 {
			return nil, "", fmt.Errorf("version is %s; recollect writes Cursor's hooks format version 1", raw)
		}
	} else {
		top.setFirst("version", json.RawMessage("1"))
	}
	events := ordered{}
	if raw, ok := top.get("hooks"); ok {
		if events, err = readOrdered(raw, "hooks"); err != nil {
			return nil, "", err
		}
	}
	var stop []json.RawMessage
	if raw, ok := events.get(CursorStopEvent); ok {
		if err := json.Unmarshal(raw, &stop); err != nil {
			return nil, "", errors.New("hooks.stop is not a list of hooks")
		}
	}
	want := ThresholdCommand(binary, dataDir)
	action := "installed"
	found := false
	for i, raw := range stop {
		var h map[string]json.RawMessage
		if err := json.Unmarshal(raw, &h); err != nil {
			return nil, "", fmt.Errorf("hooks.stop[%d] is not an object", i)
		}
		var cmd string
		json.Unmarshal(h["command"], &cmd)
		if !isThresholdCommand(cmd) {
			continue
		}
		found = true
		if cmd == want {
			return data, "unchanged", nil
		}
		entry, err := readOrdered(raw, fmt.Sprintf("hooks.stop[%d]", i))
		if err != nil {
			return nil, "", err
		}
		entry.set("command", mustJSON(want))
		stop[i] = entry.encode()
		action = "updated"
		break
	}
	if !found {
		stop = append(stop, mustJSON(map[string]string{"command": want}))
	}
	events.set(CursorStopEvent, mustJSON(stop))
	top.set("hooks", events.encode())
	var out bytes.Buffer
	if err := json.Indent(&out, top.encode(), "", "  "); err != nil {
		return nil, "", fmt.Errorf("format hooks file: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), action, nil
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

// mustJSON encodes values that always encode (strings, maps of strings,
// raw messages) without HTML escaping, so a command's & and > stay as
// typed.
func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// ordered is a JSON object that keeps its members in their original order.
type ordered struct {
	keys []string
	vals map[string]json.RawMessage
}

// readOrdered reads the object at path what ("" for the whole file).
func readOrdered(data []byte, what string) (ordered, error) {
	o := ordered{vals: map[string]json.RawMessage{}}
	prefix := ""
	if what != "" {
		prefix = what + "."
	}
	member := func(key string) string { return prefix + key }
	if what == "" {
		what = "the file"
	}
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
			return o, fmt.Errorf("%s is not valid JSON: %w", member(key), err)
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

func (o *ordered) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *ordered) set(k string, v json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// setFirst adds k as the first member.
func (o *ordered) setFirst(k string, v json.RawMessage) {
	o.set(k, v)
	o.keys = append([]string{k}, o.keys[:len(o.keys)-1]...)
}

func (o *ordered) encode() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}
