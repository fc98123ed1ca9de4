package owneronly

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// User is the SID of the account this process runs as, in string form.
func User() (string, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("read this process's user: %w", err)
	}
	return tu.User.Sid.String(), nil
}

// Check reads the DACL of path and reports who besides the current user
// it lets in.
func Check(path string) (Report, error) {
	user, err := User()
	if err != nil {
		return Report{}, err
	}
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return Report{}, fmt.Errorf("read the access list of %s: %w", path, err)
	}
	return Read(sd.String(), user), nil
}

// Restrict gives path the owner-only DACL of kind k when its DACL lets
// anyone else in, and reports whether it changed anything.
func Restrict(path string, k Kind) (changed bool, err error) {
	r, err := Check(path)
	if err != nil {
		return false, err
	}
	if r.OwnerOnly {
		return false, nil
	}
	user, err := User()
	if err != nil {
		return false, err
	}
	sd, err := windows.SecurityDescriptorFromString(SDDL(user, k))
	if err != nil {
		return false, fmt.Errorf("build the access list for %s: %w", path, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return false, fmt.Errorf("build the access list for %s: %w", path, err)
	}
	err = windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
	if err != nil {
		return false, fmt.Errorf("restrict %s to its owner: %w; run icacls %q /inheritance:r /grant:r \"%%USERNAME%%:F\"", path, err, path)
	}
	return true, nil
}

// Attributes are security attributes carrying the owner-only descriptor
// of kind k, for objects created with one (the control pipe).
func Attributes(k Kind) (*windows.SecurityAttributes, error) {
	user, err := User()
	if err != nil {
		return nil, err
	}
	sd, err := windows.SecurityDescriptorFromString(SDDL(user, k))
	if err != nil {
		return nil, fmt.Errorf("build an owner-only descriptor: %w", err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	return sa, nil
}

// KindOf is Dir for a directory and File otherwise.
func KindOf(fi os.FileInfo) Kind {
	if fi.IsDir() {
		return Dir
	}
	return File
}
