package main

import (
	"strings"
	"testing"
)

// TestServicePrintWindows: --windows prints only the Task Scheduler
// definition, a logon trigger for USERDOMAIN\USERNAME running this binary
// on this store.
func TestServicePrintWindows(t *testing.T) {
	data := t.TempDir()
	out, _, code := runApp(t, map[string]string{"USERNAME": "jo", "USERDOMAIN": "PC"}, "service", "print", "--windows", "--data", data)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"<LogonTrigger>", `<UserId>PC\jo</UserId>`, "<Command>" + thisBinary(t) + "</Command>", "<Arguments>daemon --data " + data + "</Arguments>"} {
		if !strings.Contains(out, want) {
			t.Errorf("service print --windows lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "systemd") {
		t.Errorf("service print --windows also prints the Unix units:\n%s", out)
	}
}
