package scheduler

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
)

// ServiceLabel names the daemon's launchd job and systemd unit.
const ServiceLabel = "dev.recollect.daemon"

// SystemdUnit is a systemd --user unit that keeps the daemon of dataDir
// running. binary and dataDir must be absolute.
func SystemdUnit(binary, dataDir string) string {
	return fmt.Sprintf(`# ~/.config/systemd/user/recollect.service
# then: systemctl --user daemon-reload && systemctl --user enable --now recollect
[Unit]
Description=recollect daemon for %s

[Service]
Type=simple
ExecStart=%s daemon --data %s
Restart=on-failure
RestartSec=5

[Install]
WantedBy=default.target
`, strings.ReplaceAll(dataDir, "%", "%%"), systemdQuote(binary), systemdQuote(dataDir))
}

// LaunchdPlist is a launchd agent that keeps the daemon of dataDir
// running. binary and dataDir must be absolute.
func LaunchdPlist(binary, dataDir string) string {
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
    <string>%[2]s</string>
    <string>daemon</string>
    <string>--data</string>
    <string>%[3]s</string>
  </array>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>StandardErrorPath</key>
  <string>%[3]s/daemon.stderr</string>
</dict>
</plist>
`, ServiceLabel, xmlEscape(binary), xmlEscape(dataDir))
}

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
