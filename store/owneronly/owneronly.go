// Package owneronly is the Windows form of recollect's privacy promise
// (a data directory 0700, its files 0600): a protected DACL that grants
// one account, the current user, full access and inherits nothing. It
// builds and reads such DACLs as SDDL strings on every platform, so the
// construction is tested anywhere; applying and reading them on files is
// Windows-only (Restrict and Check). It owns no Unix modes: those stay
// with package store.
package owneronly

import (
	"strings"
)

// Kind is what a DACL protects; it decides the access right and whether
// children inherit the entry.
type Kind int

// The kinds of object recollect protects.
const (
	// File is a file in the data directory: full file access.
	File Kind = iota
	// Dir is the data directory: full access, inherited by the files and
	// folders created in it.
	Dir
	// Pipe is the daemon's control pipe: generic all.
	Pipe
)

// SDDL is the security descriptor string granting sid, and nobody else,
// full access to an object of kind k. "P" protects the DACL from entries
// inherited from the parent folder (on Unix, the mode ignores the parent
// too).
func SDDL(sid string, k Kind) string {
	switch k {
	case Dir:
		return "D:P(A;OICI;FA;;;" + sid + ")"
	case Pipe:
		return "D:P(A;;GA;;;" + sid + ")"
	}
	return "D:P(A;;FA;;;" + sid + ")"
}

// Report is what a DACL lets other accounts do.
type Report struct {
	// OwnerOnly is true when every entry that grants access names the
	// user, so no other account reads the object.
	OwnerOnly bool
	// Others lists the accounts (SIDs or SDDL aliases such as "WD" for
	// Everyone) other entries grant access to, in DACL order; with no
	// DACL at all it holds "everyone (no DACL)".
	Others []string
}

// Read reports who besides user the DACL in the SDDL string sddl lets in.
// A descriptor without a DACL, or with a NULL one, lets everyone in.
// Deny entries, audit entries (a SACL) and inherit-only entries grant
// nothing on the object and are skipped.
func Read(sddl, user string) Report {
	i := strings.Index(sddl, "D:")
	if i < 0 {
		return Report{Others: []string{"everyone (no DACL)"}}
	}
	dacl := sddl[i+2:]
	if strings.HasPrefix(dacl, "NO_ACCESS_CONTROL") {
		return Report{Others: []string{"everyone (no DACL)"}}
	}
	r := Report{OwnerOnly: true}
	for {
		open := strings.IndexByte(dacl, '(')
		if open < 0 {
			break
		}
		end := strings.IndexByte(dacl[open:], ')')
		if end < 0 {
			break
		}
		ace := strings.Split(dacl[open+1:open+end], ";")
		dacl = dacl[open+end+1:]
		if len(ace) < 6 || (ace[0] != "A" && ace[0] != "OA") {
			continue
		}
		if ace[1] != "" && strings.Contains(ace[1], "IO") {
			continue // inherit-only: applies to children, not this object
		}
		if trustee := ace[5]; !strings.EqualFold(trustee, user) {
			r.OwnerOnly = false
			r.Others = append(r.Others, trustee)
		}
	}
	return r
}
