package scheduler

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strings"
)

// ServiceLabel names the launchd job of the daemon of the user's own
// store; another store's job adds its ServiceName suffix.
const ServiceLabel = "dev.recollect.daemon"

// ServiceName names the daemon's systemd unit (NAME.service) and, after
// ServiceLabel, its launchd job: "recollect" for the user's own
// ~/.recollect, and for any other store "recollect-" and the store's name
// with a short hash of its path, so two stores' services never collide.
func ServiceName(dataDir, home string) string {
	dataDir = filepath.Clean(dataDir)
	if home != "" && dataDir == filepath.Join(home, ".recollect") {
		return "recollect"
	}
	base := dataDir
	if filepath.Base(base) == ".recollect" {
		base = filepath.Dir(base)
	}
	var b strings.Builder
	for _, r := range strings.ToLower(filepath.Base(base)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	slug := strings.Trim(b.String(), "-")
	if len(slug) > 32 {
		slug = slug[:32]
	}
	sum := sha256.Sum256([]byte(dataDir))
	if slug == "" {
		return "recollect-" + hex.EncodeToString(sum[:3])
	}
	return "recollect-" + slug + "-" + hex.EncodeToString(sum[:3])
}

// launchdLabel is the launchd job label of the service named name.
func launchdLabel(name string) string {
	if name == "recollect" {
		return ServiceLabel
	}
	return ServiceLabel + "." + strings.TrimPrefix(name, "recollect-")
}

// SystemdUnit is a systemd --user unit that keeps the daemon of dataDir
// running. binary, dataDir and envFile must be absolute; envFile, when not
// empty, is read for the daemon's environment (postgres.EnvFilePath, where
// a user service finds the URL variable it does not inherit).
func SystemdUnit(binary, dataDir, envFile, name string) string {
	environment := ""
	if envFile != "" {
		environment = "EnvironmentFile=" + systemdQuote(envFile) + "\n"
	}
	return fmt.Sprintf(`# ~/.config/systemd/user/%[5]s.service
# then: systemctl --user daemon-reload && systemctl --user enable --now %[5]s
[Unit]
Description=recollect daemon for %[1]s

[Service]
Type=simple
%[2]sExecStart=%[3]s daemon --data %[4]s
Restart=on-failure
RestartSec=5

[Install]
WantedBy=default.target
`, strings.ReplaceAll(dataDir, "%", "%%"), environment, systemdQuote(binary), systemdQuote(dataDir), name)
}

// EnvFileNote tells, as comment lines to print above the units, why they
// read envFile and how to write it with the variable name's value from the
// user's shell, without the value (a URL with a password) being shown.
func EnvFileNote(name, envFile string) string {
	return fmt.Sprintf(`# This store lives on PostgreSQL, so the daemon needs $%[1]s, which a user
# service does not inherit from your shell. Both units read it from %[2]s,
# as every recollect does that finds the variable unset (an editor started from
# the desktop); write that file, readable by you alone, from a shell where it is set:
#   mkdir -p %[3]s && (umask 077; printf "%[1]s='%%s'\n" "$%[1]s" > %[2]s)
`, name, shQuote(envFile), shQuote(filepath.Dir(envFile)))
}

// LaunchdPlist is a launchd agent that keeps the daemon of dataDir
// running. binary, dataDir and envFile must be absolute; with an envFile
// the agent runs the daemon through /bin/sh, which exports what the file
// sets (launchd has no environment file of its own).
func LaunchdPlist(binary, dataDir, envFile, name string) string {
	args := []string{binary, "daemon", "--data", dataDir}
	if envFile != "" {
		args = []string{"/bin/sh", "-c", "set -a; . " + shQuote(envFile) + "; exec " + shQuote(binary) + " daemon --data " + shQuote(dataDir)}
	}
	var program strings.Builder
	for _, a := range args {
		program.WriteString("    <string>" + xmlEscape(a) + "</string>\n")
	}
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<!-- ~/Library/LaunchAgents/%[1]s.plist
     then: launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/%[1]s.plist -->
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>%[1]s</string>
  <key>ProgramArguments</key>
  <array>
%[3]s  </array>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>StandardErrorPath</key>
  <string>%[2]s/daemon.stderr</string>
</dict>
</plist>
`, launchdLabel(name), xmlEscape(dataDir), program.String())
}

// shQuote quotes s for a POSIX shell: in single quotes, each ' closed,
// escaped and reopened.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func xmlEscape(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// systemdQuote quotes a path for an ExecStart line when it needs it.
func systemdQuote(s string) string {
	if !strings.ContainsAny(s, " \t\"'\\$%;") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `$$`, `%`, `%%`)
	return `"` + r.Replace(s) + `"`
}
