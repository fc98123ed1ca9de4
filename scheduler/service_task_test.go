package scheduler

import (
	"encoding/xml"
	"strings"
	"testing"
)

// TestWindowsArg pins the command-line quoting the task's Arguments use,
// as CommandLineToArgvW reads it back.
func TestWindowsArg(t *testing.T) {
	cases := []struct{ in, want string }{
		{`C:\Users\me\.recollect`, `C:\Users\me\.recollect`},
		{`C:\Users\Khushi Jagga\.recollect`, `"C:\Users\Khushi Jagga\.recollect"`},
		{`C:\data dir\`, `"C:\data dir\\"`},
		{`C:\say "hi"`, `"C:\say \"hi\""`},
		{`C:\a\"b c`, `"C:\a\\\"b c"`},
		{``, `""`},
	}
	for _, c := range cases {
		if got := windowsArg(c.in); got != c.want {
			t.Errorf("windowsArg(%q) = %s; want %s", c.in, got, c.want)
		}
	}
}

// TestTaskSchedulerXML reads the task back as Task Scheduler would: a
// logon trigger for the user, and the daemon's command and arguments
// with a path holding a space, an ampersand and a quote.
func TestTaskSchedulerXML(t *testing.T) {
	bin := `C:\Program Files\recollect\recollect.exe`
	data := `C:\Users\Jo & "Al"\.recollect`
	def := TaskSchedulerXML(bin, data, `PC\jo`, "recollect")
	var task struct {
		Triggers struct {
			Logon *struct {
				UserID string `xml:"UserId"`
			} `xml:"LogonTrigger"`
		}
		Actions struct {
			Exec struct {
				Command   string
				Arguments string
			}
		}
	}
	if err := xml.Unmarshal([]byte(def), &task); err != nil {
		t.Fatalf("task is not well-formed XML: %v\n%s", err, def)
	}
	if task.Triggers.Logon == nil || task.Triggers.Logon.UserID != `PC\jo` {
		t.Errorf("trigger: %+v; want a logon trigger for PC\\jo", task.Triggers.Logon)
	}
	if task.Actions.Exec.Command != bin {
		t.Errorf("command %q; want %q", task.Actions.Exec.Command, bin)
	}
	if want := `daemon --data "C:\Users\Jo & \"Al\"\.recollect"`; task.Actions.Exec.Arguments != want {
		t.Errorf("arguments %s; want %s", task.Actions.Exec.Arguments, want)
	}
	if strings.Contains(TaskSchedulerXML(bin, data, "", "recollect"), "UserId") {
		t.Error("with no user the trigger names one")
	}
}
