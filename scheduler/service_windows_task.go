package scheduler

import (
	"fmt"
	"strings"
)

// TaskSchedulerXML is a Windows Task Scheduler definition that starts the
// daemon of dataDir when user logs on and restarts it a minute after a
// failure. binary and dataDir are absolute Windows paths; user is
// DOMAIN\name (empty: any user's logon starts it, as the registering
// user). The task runs with the user's own rights and environment, so a
// PostgreSQL store's URL variable set for the user (setx) reaches it.
func TaskSchedulerXML(binary, dataDir, user, name string) string {
	userID := ""
	if user != "" {
		userID = "\n      <UserId>" + xmlEscape(user) + "</UserId>"
	}
	args := "daemon --data " + windowsArg(dataDir)
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<!-- save as %[1]s.xml, then: schtasks /Create /TN %[1]s /XML %[1]s.xml
     start it now: schtasks /Run /TN %[1]s -->
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>recollect daemon for %[2]s</Description>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>%[3]s
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>999</Count>
    </RestartOnFailure>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>%[4]s</Command>
      <Arguments>%[5]s</Arguments>
    </Exec>
  </Actions>
</Task>
`, name, xmlEscape(dataDir), userID, xmlEscape(binary), xmlEscape(args))
}

// windowsArg quotes s as one argument of a Windows command line, by the
// rules CommandLineToArgvW and the C runtime read it back with: quotes
// around it when it holds a space, a tab or a quote (or is empty), a
// quote inside escaped with a backslash, and backslashes doubled where a
// quote follows them.
func windowsArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			slashes++
			continue
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*slashes+1))
		default:
			b.WriteString(strings.Repeat(`\`, slashes))
		}
		slashes = 0
		b.WriteByte(s[i])
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes))
	b.WriteByte('"')
	return b.String()
}
