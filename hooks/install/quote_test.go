package install

import "testing"

// TestWindowsCommandArg pins how hook commands spell Windows paths: one
// word to cmd.exe and to bash alike.
func TestWindowsCommandArg(t *testing.T) {
	cases := []struct{ in, want string }{
		{`C:\Users\me\bin\recollect-notify.exe`, `C:/Users/me/bin/recollect-notify.exe`},
		{`C:\Program Files\recollect\recollect-notify.exe`, `"C:/Program Files/recollect/recollect-notify.exe"`},
		{`C:\Users\Khushi Jagga\.recollect`, `"C:/Users/Khushi Jagga/.recollect"`},
		{`\\server\share\.recollect`, `//server/share/.recollect`},
		{`C:\Users\me\(work)`, `"C:/Users/me/(work)"`},
		{``, `""`},
	}
	for _, c := range cases {
		if got := windowsCommandArg(c.in); got != c.want {
			t.Errorf("windowsCommandArg(%q) = %s; want %s", c.in, got, c.want)
		}
	}
}
