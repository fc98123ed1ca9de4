//go:build !unix

package vector

import (
	"errors"
	"os"
)

// mapFile maps nothing here: without a mapping the similarity arm reads
// every candidate's vector from the table.
func mapFile(f *os.File, size int) (*mapping, error) {
	return nil, errors.New("no memory-mapped files on this platform")
}
