//go:build unix

package vector

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// mapFile maps the first size bytes of f read-only. The mapping outlives
// f and is released when the returned mapping is no longer referenced.
func mapFile(f *os.File, size int) (*mapping, error) {
	if size <= 0 {
		return nil, fmt.Errorf("map %s: nothing to map", f.Name())
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", f.Name(), err)
	}
	m := &mapping{data: data}
	runtime.AddCleanup(m, func(b []byte) { _ = syscall.Munmap(b) }, data)
	return m, nil
}
