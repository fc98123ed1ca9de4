//go:build !unix

package sources

import "os"

// fileID reports no identity where the platform has no inode: a renamed
// file is then read as a new one (its events deduplicate by path).
func fileID(os.FileInfo) (dev, ino int64, ok bool) { return 0, 0, false }
