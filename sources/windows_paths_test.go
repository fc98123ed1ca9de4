package sources

import (
	"strings"
	"testing"
)

// TestWindowsFolderNames pins the folder names Claude Code and Cursor give
// Windows projects. Each row is a real folder seen on a Windows machine
// (~\.claude\projects\… and ~\.cursor\projects\…) beside the cwd it
// names. Claude Code keeps the drive letter's case as the cwd spells
// it; Cursor lower-cases it, which is why Cursor folders match
// case-insensitively.
func TestWindowsFolderNames(t *testing.T) {
	claude := []struct{ cwd, folder string }{
		{`C:\Users\rauds\Desktop\Projektid\RAIO`, `C--Users-rauds-Desktop-Projektid-RAIO`},
		{`C:\Users\Ken\Desktop\Claude`, `C--Users-Ken-Desktop-Claude`},
		{`C:\Users\User`, `C--Users-User`},
		{`c:\Users\juank\Desktop\Quinel-Web`, `c--Users-juank-Desktop-Quinel-Web`},
		{`C:\Users\david\OneDrive\Documentos\GitHub\HUNTERRIDDLE`, `C--Users-david-OneDrive-Documentos-GitHub-HUNTERRIDDLE`},
	}
	for _, c := range claude {
		if got := ClaudeFolder(c.cwd); got != c.folder {
			t.Errorf("ClaudeFolder(%q) = %q; want %q", c.cwd, got, c.folder)
		}
	}
	cursor := []struct{ cwd, folder string }{
		{`C:\Users\User\Documents\GitHub\styledbytonika`, `c-Users-User-Documents-GitHub-styledbytonika`},
		{`c:\Users\quent\Documents\Projets\15. New project\greenhouse-idle`, `c-Users-quent-Documents-Projets-15-New-project-greenhouse-idle`},
		{`C:\Users\Khushi Jagga\Desktop\Architect Webiste`, `c-Users-Khushi-Jagga-Desktop-Architect-Webiste`},
		{`C:\Users\hp ryzen7 8 ядро\Desktop\SAYT\Hotkeys-helper`, `c-Users-hp-ryzen7-8-Desktop-SAYT-Hotkeys-helper`},
	}
	for _, c := range cursor {
		if got := CursorSlug(c.cwd); !strings.EqualFold(got, c.folder) {
			t.Errorf("CursorSlug(%q) = %q; want %q (any case)", c.cwd, got, c.folder)
		}
	}
}

// TestWindowsCwdWithin: a transcript's cwd matches a source's cwd as
// Windows compares paths, on every platform.
func TestWindowsCwdWithin(t *testing.T) {
	cases := []struct {
		cwd, want string
		in        bool
	}{
		{`C:\Users\me\proj`, `C:\Users\me\proj`, true},
		{`c:\users\ME\Proj`, `C:\Users\me\proj`, true},
		{`C:\Users\me\proj\sub\dir`, `C:\Users\me\proj`, true},
		{`C:/Users/me/proj/sub`, `C:\Users\me\proj\`, true},
		{`C:\Users\me\project2`, `C:\Users\me\proj`, false},
		{`D:\Users\me\proj`, `C:\Users\me\proj`, false},
		{`C:\work`, `C:\`, true},
		{`\\server\share\repo`, `\\SERVER\share`, true},
		{`/home/me/Proj`, `/home/me/proj`, false},
		{`/home/me/proj/x`, `/home/me/proj`, true},
	}
	for _, c := range cases {
		if got := CwdWithin(c.cwd, c.want); got != c.in {
			t.Errorf("CwdWithin(%q, %q) = %v; want %v", c.cwd, c.want, got, c.in)
		}
	}
}
