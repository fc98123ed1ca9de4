// Package install wires recollect into coding agents' settings: it merges
// the hook and MCP entries into Claude Code's settings.json, Codex's
// config.toml and Cursor's hooks.json and mcp.json (keeping a backup of
// every file it changes and every entry of the user's), renders the
// snippets users paste instead, and writes the Claude Code plugin's
// hooks.json. It stays on the standard library and store/jsonedit.
package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recollect/recollect/store/jsonedit"
)

// SettingsFile is Claude Code's settings file name.
const SettingsFile = "settings.json"

// LocalSettingsFile is Claude Code's per-machine settings file of a
// project, which Claude Code keeps out of git: the place for hooks with
// this machine's absolute paths.
const LocalSettingsFile = "settings.local.json"

// ProjectSettings is the settings file of the project in dir, the one a
// team commits.
func ProjectSettings(dir string) string { return filepath.Join(dir, ".claude", SettingsFile) }

// ProjectLocalSettings is the project's per-machine settings file,
// .claude/settings.local.json.
func ProjectLocalSettings(dir string) string { return filepath.Join(dir, ".claude", LocalSettingsFile) }

// UserSettings is the user's Claude Code settings file: under
// $CLAUDE_CONFIG_DIR when set, else ~/.claude.
func UserSettings(getenv func(string) string) (string, error) {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, SettingsFile), nil
	}
	home, err := homeDir(getenv, "use --project DIR instead")
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".claude", SettingsFile), nil
}

// homeDir is the user's home directory: $HOME through getenv, else the
// system's; hint says what to do when neither is known.
func homeDir(getenv func(string) string, hint string) (string, error) {
	if home := getenv("HOME"); home != "" {
		return home, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w; %s", err, hint)
	}
	return home, nil
}

// Result says what an installer (Claude, Entries, Codex, Cursor,
// CursorMCP) did to a settings file.
type Result struct {
	Path string
	// Action is "installed", "updated" (an older recollect entry was
	// replaced) or "unchanged".
	Action string
	// Backup is the copy written before the change, "" when the file was
	// new or left unchanged.
	Backup string
	// Actions is each entry's action, in the order they were given.
	Actions []string
}

// Claude merges Claude Code's PreCompact notify hook alone into the
// settings file at path (see Entries).
func Claude(path, binary, dataDir string, now time.Time) (Result, error) {
	return Entries(path, []SettingsEntry{preCompactEntry(binary, dataDir)}, now)
}

// Entries merges entries into the settings file at path, keeping
// every other key and hook in their order and bytes. Run twice it changes
// nothing; an earlier recollect entry (another binary or data directory)
// is replaced in place. The original is copied to a timestamped backup
// before it is rewritten. now names the backup. The result's Action is
// "unchanged" when no entry changed, "installed" when one was added, else
// "updated"; Actions has each entry's.
func Entries(path string, entries []SettingsEntry, now time.Time) (Result, error) {
	res := Result{Path: path}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, fmt.Errorf("read %s: %w", path, err)
	}
	merged, actions, err := MergeEntries(old, entries)
	if err != nil {
		return res, fmt.Errorf("%s: %w; fix the file or paste the entry from `recollect hooks print` by hand", path, err)
	}
	res.Actions = actions
	res.Action = "unchanged"
	for _, a := range actions {
		if a == "installed" || a == "updated" && res.Action == "unchanged" {
			res.Action = a
		}
	}
	if res.Action == "unchanged" {
		return res, nil
	}
	return res, replaceFile(path, old, merged, now, &res)
}

// Consistent adds to entries, for every other hook recollect offers
// (UserPromptSubmit when it was not asked for), an entry that only
// replaces an earlier recollect entry of that event and installs nothing
// new: so one install leaves every recollect hook of the file running the
// same binary against the same store. binary is what the context hooks
// run: recollect-notify or recollect (see ContextCommand).
func Consistent(entries []SettingsEntry, binary, dataDir string) []SettingsEntry {
	have := map[string]bool{}
	for _, e := range entries {
		have[e.Event] = true
	}
	out := append([]SettingsEntry(nil), entries...)
	for _, h := range Hooks {
		if have[h.Event] || h.Event == EventPreCompact {
			continue
		}
		verb := h.Verb
		out = append(out, SettingsEntry{Event: h.Event, Matcher: h.Matcher, Timeout: h.Timeout, Command: ContextCommand(binary, verb, dataDir),
			ours: func(cmd string) bool { return isContextCommand(cmd, verb) }, ifPresent: true})
	}
	return out
}

// writeBackup copies old, the bytes of path before a change, to a new
// file beside it named after now (path.bak-20261205T002959Z, then -2, -3,
// … when that name is taken), never overwriting an earlier backup.
func writeBackup(path string, old []byte, mode os.FileMode, now time.Time) (string, error) {
	base := path + ".bak-" + now.UTC().Format("20060102T150405Z")
	name := base
	for n := 2; ; n++ {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, os.ErrExist) {
			name = fmt.Sprintf("%s-%d", base, n)
			continue
		}
		if err != nil {
			return "", fmt.Errorf("write backup %s: %w", name, err)
		}
		_, err = f.Write(old)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("write backup %s: %w", name, err)
		}
		return name, nil
	}
}

// MergeSettings returns settings (the bytes of a settings.json, empty for
// none) with the PreCompact notify hook merged in, and the action taken
// (see MergeEntry).
func MergeSettings(settings []byte, binary, dataDir string) ([]byte, string, error) {
	return MergeEntry(settings, preCompactEntry(binary, dataDir))
}

// SettingsEntry is one hook recollect writes into Claude Code's settings:
// the event, the matcher group it goes in and its command, and how to
// recognise an entry an earlier install wrote (another binary or data
// directory), which this one replaces in place.
type SettingsEntry struct {
	Event   string
	Matcher string
	Command string
	Timeout int
	ours    func(cmd string) bool
	// ifPresent entries only replace an earlier recollect entry; where
	// there is none they are "absent" and nothing is added.
	ifPresent bool
}

// SettingsEntries are the hooks `hooks install` writes for the recollect
// binary at recollect and the hook binary at notify (recollect-notify, or
// recollect itself): PreCompact notify, SessionStart context, and — only
// with prompt — the UserPromptSubmit context hook, in the order of Hooks.
// The context hooks run recollect-notify when it is the hook binary, else
// recollect.
func SettingsEntries(recollect, notify, dataDir string, prompt bool) []SettingsEntry {
	var out []SettingsEntry
	for _, h := range Hooks {
		if h.OptIn && !prompt {
			continue
		}
		e := SettingsEntry{Event: h.Event, Matcher: h.Matcher, Timeout: h.Timeout}
		if h.Event == EventPreCompact {
			out = append(out, preCompactEntry(notify, dataDir))
			continue
		}
		verb := h.Verb
		e.Command = ContextCommand(contextBinary(recollect, notify), verb, dataDir)
		e.ours = func(cmd string) bool { return isContextCommand(cmd, verb) }
		out = append(out, e)
	}
	return out
}

// contextBinary is what the context hooks run: recollect-notify when it is
// the hook binary (it asks the running daemon, else runs recollect), else
// recollect.
func contextBinary(recollect, notify string) string {
	if filepath.Base(notify) == NotifyBinaryName {
		return notify
	}
	return recollect
}

// preCompactEntry is PreCompactEntry as a SettingsEntry.
func preCompactEntry(binary, dataDir string) SettingsEntry {
	return SettingsEntry{Event: EventPreCompact, Command: NotifyCommand(binary, dataDir), Timeout: HookTimeoutSeconds,
		ours: func(cmd string) bool { return isNotifyCommand(cmd, filepath.Base(binary)) }}
}

// MergeEntries merges every entry in turn and returns the settings with
// the action taken for each, in the order of entries.
func MergeEntries(settings []byte, entries []SettingsEntry) ([]byte, []string, error) {
	actions := make([]string, len(entries))
	for i, e := range entries {
		var err error
		if settings, actions[i], err = MergeEntry(settings, e); err != nil {
			return nil, nil, err
		}
	}
	return settings, actions, nil
}

// MergeEntry returns settings (the bytes of a settings.json, empty for
// none) with e merged in, and the action taken: "installed", "updated" (an
// earlier recollect entry was replaced in place), "unchanged", or, for an
// entry of Consistent that found no earlier one, "absent". It
// splices the entry into the original bytes: every other key, entry,
// escape and line keeps its bytes and order, and the new entry follows the
// surrounding layout (one line in a one-line list, indented otherwise).
func MergeEntry(settings []byte, e SettingsEntry) ([]byte, string, error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		settings = []byte("{}\n")
	}
	want := group{Matcher: e.Matcher, Hooks: []command{{Type: "command", Command: e.Command, Timeout: e.Timeout}}}
	top, err := jsonedit.Scan(settings, jsonedit.FirstNonSpace(settings), '{', "settings")
	if err != nil {
		return nil, "", err
	}
	if err := jsonedit.TrailingData(settings, top.Close, "settings"); err != nil {
		return nil, "", err
	}
	hooksM, ok := top.Find("hooks")
	if !ok && e.ifPresent {
		return settings, "absent", nil
	}
	if !ok {
		return jsonedit.Insert(settings, top, "hooks", map[string]any{e.Event: []any{want}}), "installed", nil
	}
	hooksObj, err := jsonedit.Scan(settings, hooksM.Start, '{', "hooks")
	if err != nil {
		return nil, "", err
	}
	eventM, ok := hooksObj.Find(e.Event)
	if !ok && e.ifPresent {
		return settings, "absent", nil
	}
	if !ok {
		return jsonedit.Insert(settings, hooksObj, e.Event, []any{want}), "installed", nil
	}
	path := "hooks." + e.Event
	groups, err := jsonedit.Scan(settings, eventM.Start, '[', path)
	if err != nil {
		return nil, "", fmt.Errorf("%s is not a list of matcher groups", path)
	}
	for gi, g := range groups.Elems {
		group, err := jsonedit.Scan(settings, g.Start, '{', fmt.Sprintf("%s[%d]", path, gi))
		if err != nil {
			return nil, "", fmt.Errorf("%s[%d] is not an object", path, gi)
		}
		listM, ok := group.Find("hooks")
		if !ok {
			continue
		}
		list, err := jsonedit.Scan(settings, listM.Start, '[', "hooks")
		if err != nil {
			continue
		}
		for _, h := range list.Elems {
			var hook struct {
				Type    string  `json:"type"`
				Command string  `json:"command"`
				Timeout float64 `json:"timeout"`
			}
			if json.Unmarshal(settings[h.Start:h.End], &hook) != nil || !e.ours(hook.Command) {
				continue
			}
			if hook.Command == e.Command && int(hook.Timeout) == e.Timeout && hook.Type == "command" {
				return settings, "unchanged", nil
			}
			return jsonedit.Replace(settings, list, h, want.Hooks[0]), "updated", nil
		}
	}
	if e.ifPresent {
		return settings, "absent", nil
	}
	return jsonedit.Insert(settings, groups, "", want), "installed", nil
}

// isContextCommand reports whether cmd runs some recollect's `hooks verb`
// or recollect-notify's `verb` (session-start or user-prompt), whatever
// the binary path or data directory.
func isContextCommand(cmd, verb string) bool {
	bin, rest := firstWord(strings.TrimSpace(cmd))
	fields := strings.Fields(rest)
	if filepath.Base(bin) == NotifyBinaryName {
		return len(fields) >= 1 && fields[0] == verb
	}
	return strings.HasPrefix(filepath.Base(bin), "recollect") && len(fields) >= 2 && fields[0] == "hooks" && fields[1] == verb
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

// HasPromptHook reports whether settings (a settings.json's bytes) holds
// some recollect's UserPromptSubmit hook: an install then keeps it, moved
// to the store the other hooks now name, so no hook is left pointing at
// another store.
func HasPromptHook(settings []byte) bool {
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(settings, &s) != nil {
		return false
	}
	for _, g := range s.Hooks["UserPromptSubmit"] {
		for _, h := range g.Hooks {
			if isContextCommand(h.Command, "user-prompt") {
				return true
			}
		}
	}
	return false
}
