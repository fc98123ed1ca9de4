package notice

import (
	"errors"
	"testing"
	"time"
)

// TestExchangeWithoutDaemon: with no pipe of that name the client returns
// ErrNoDaemon at once, without waiting for its deadline.
func TestExchangeWithoutDaemon(t *testing.T) {
	deadline := time.Now().Add(time.Minute)
	_, err := Exchange(PipeName(`C:\no\such\recollect\data`), OpStatus, []byte("{\"op\":\"status\"}\n"), deadline)
	if !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("Exchange with no pipe: %v; want ErrNoDaemon", err)
	}
	if time.Until(deadline) < 50*time.Second {
		t.Fatalf("Exchange with no pipe waited for its deadline")
	}
}
