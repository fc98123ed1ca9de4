package integrate

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/recollect/recollect/store"
)

// A claim token names the process that holds the claim, so a claim left by
// a process that is gone (kill -9 during integrate) is taken over at the
// next run instead of waiting out the lease, and stats can say who holds
// facts and since when. Its layout is
//
//	<claim time>/<random>/<host>/<pid>/<process start>
//
// and it still begins with the claim time, so comparing tokens as text
// compares claim times. Tokens written before (time/random) name nobody and
// wait out the lease.

// Claimer is who holds a claim.
type Claimer struct {
	// At is when the facts were claimed.
	At time.Time
	// Host and PID name the process; Start is its start time as the
	// system reports it ("" where unknown), so a reused pid is told apart.
	Host  string
	PID   int
	Start string
}

// String says who and since when, for stats.
func (c Claimer) String() string {
	if c.PID == 0 {
		return "an unnamed process (an older recollect) since " + store.FormatTime(c.At)
	}
	return fmt.Sprintf("pid %d on %s since %s", c.PID, c.Host, store.FormatTime(c.At))
}

// Alive reports whether the claimer still runs: false only when it is on
// this host and its pid is gone or now names a process started at another
// time. A claimer on another host (a store on a shared disk) is presumed
// alive; its claim waits out the lease.
func (c Claimer) Alive() bool {
	if c.PID == 0 {
		return true
	}
	if host, _ := os.Hostname(); host != c.Host {
		return true
	}
	if c.PID == os.Getpid() {
		return c.Start == processStart(c.PID)
	}
	if pidGone(c.PID) {
		return false
	}
	if start := processStart(c.PID); start != "" && c.Start != "" && start != c.Start {
		return false
	}
	return true
}

// ParseClaim reads the claimer out of a claim token.
func ParseClaim(token string) (Claimer, error) {
	parts := strings.Split(token, "/")
	if len(parts) < 2 {
		return Claimer{}, fmt.Errorf("claim token %q: want time/random[/host/pid/start]", token)
	}
	at, err := store.ParseTime(parts[0])
	if err != nil {
		return Claimer{}, fmt.Errorf("claim token %q: %w", token, err)
	}
	c := Claimer{At: at}
	if len(parts) == 5 {
		pid, err := strconv.Atoi(parts[3])
		if err != nil || pid <= 0 {
			return Claimer{}, fmt.Errorf("claim token %q: bad pid", token)
		}
		c.Host, c.PID, c.Start = parts[2], pid, parts[4]
	}
	return c, nil
}

// claimerSuffix names this process in a claim token.
func claimerSuffix() string {
	host, _ := os.Hostname()
	host = strings.ReplaceAll(host, "/", "_")
	return fmt.Sprintf("/%s/%d/%s", host, os.Getpid(), processStart(os.Getpid()))
}

// orphanedTokens lists the claim tokens in tx whose claimer is gone.
func orphanedTokens(ctx context.Context, tx *store.Tx) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT claim_token FROM session_facts WHERE status = 'claimed' AND claim_token IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("list claims: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var tok string
		if err := rows.Scan(&tok); err != nil {
			return nil, fmt.Errorf("list claims: %w", err)
		}
		if c, err := ParseClaim(tok); err == nil && !c.Alive() {
			out = append(out, tok)
		}
	}
	return out, rows.Err()
}
