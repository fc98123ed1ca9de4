// Package hooks is what coding-agent hooks run and what wires them into an
// agent. It holds no code of its own; its subpackages each own one part:
//
//   - notice: the control socket's protocol (socket path, operations,
//     moments, the request line) and the hook binary's whole code path,
//     lean enough for a process that starts and exits in milliseconds.
//   - control: the recollect binary's client of that socket (Send,
//     WaitIdle) and the answer it decodes (Response, Status).
//   - payload: parsing the JSON a Claude Code hook writes to its stdin.
//   - install: the settings installers and snippets for Claude Code,
//     Codex and Cursor, with their backups, and the Claude Code plugin's
//     hooks.json; the plugin itself is hooks/plugin/recollect.
//
// All of them stay on the standard library (install adds store/jsonedit):
// no SQLite, MCP or model code is within a hook's reach. A test pins it.
package hooks
