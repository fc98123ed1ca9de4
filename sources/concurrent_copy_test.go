package sources

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// Several copiers — processes or machines sharing one store — copying the
// same files at the same time commit each line once: on PostgreSQL their
// transactions run side by side, and without a lock per file two of them
// both passed the offset check and numbered each other's identical lines
// as new occurrences.
func TestConcurrentCopiesOfTheSameFilesStoreEachLineOnce(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		src, dir := claudeHome(t, "/w/app")
		const files, lines = 2, 3000
		want := 0
		for f := 0; f < files; f++ {
			var body []byte
			for i := 0; i < lines; i++ {
				text := fmt.Sprintf("file %d line %d: the build step %d writes to out/%d", f, i, i, i)
				if i%25 == 0 {
					text = "yes" // identical lines, numbered by occurrence
				}
				body = append(body, userLine(fmt.Sprintf("s%d", f), "/w/app", text)...)
				want++
			}
			writeFile(t, filepath.Join(dir, fmt.Sprintf("s%d.jsonl", f)), body)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		start := make(chan struct{})
		for range 4 {
			c, _ := newCopier(t, db, src)
			c.Machine = "m1"
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for range 3 {
					if _, err := c.CopyAll(context.Background()); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("CopyAll: %v", err)
		}
		if got := eventCount(t, db, ""); got != want {
			t.Fatalf("%d events for %d lines copied by four copiers at once (each line must be stored once)", got, want)
		}
	})
}
