package owneronly

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recollect/recollect/fixtures/testdir"
)

// TestRestrict applies the owner-only DACL to a real directory and a real
// file in it and reads it back: after Restrict, Check finds nobody but
// the user, and a second Restrict changes nothing.
func TestRestrict(t *testing.T) {
	if testdir.UnderWine() {
		t.Skip("Wine accepts SetNamedSecurityInfo on files but does not keep the DACL; this test runs on real Windows only")
	}
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "memory.db")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		kind Kind
	}{{dir, Dir}, {file, File}} {
		if _, err := Restrict(c.path, c.kind); err != nil {
			t.Fatalf("Restrict(%s): %v", c.path, err)
		}
		r, err := Check(c.path)
		if err != nil {
			t.Fatalf("Check(%s): %v", c.path, err)
		}
		if !r.OwnerOnly {
			t.Fatalf("Check(%s) after Restrict = %+v; want owner only", c.path, r)
		}
		if changed, err := Restrict(c.path, c.kind); err != nil || changed {
			t.Fatalf("second Restrict(%s) = %v, %v; want no change", c.path, changed, err)
		}
	}
}

// TestAttributes builds the pipe's descriptor for the real current user.
func TestAttributes(t *testing.T) {
	sa, err := Attributes(Pipe)
	if err != nil {
		t.Fatal(err)
	}
	user, err := User()
	if err != nil {
		t.Fatal(err)
	}
	if r := Read(sa.SecurityDescriptor.String(), user); !r.OwnerOnly {
		t.Fatalf("pipe descriptor %s lets in %v", sa.SecurityDescriptor.String(), r.Others)
	}
}
