package stats

import (
	"context"
	"fmt"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
)

// NotReadStats is what the copier could not read, from source_problems:
// transcripts that are not regular files, copies that failed (retried
// with backoff), source folders that cannot be listed.
type NotReadStats struct {
	// ByProblem counts paths per problem (not_regular_file, copy_failed,
	// unreadable_folder).
	ByProblem map[string]int `json:"by_problem"`
	// Paths lists up to maxNotRead of them, most recent first.
	Paths []NotReadPath `json:"paths"`
}

// NotReadPath is one path the copier could not read and why.
type NotReadPath struct {
	Path     string `json:"path"`
	Problem  string `json:"problem"`
	Detail   string `json:"detail"`
	Failures int    `json:"failures"`
	Since    string `json:"since"`
	Last     string `json:"last"`
}

// maxNotRead bounds the paths stats lists; ByProblem counts them all.
const maxNotRead = 20

func notReadStats(ctx context.Context, p *pipeline.Pipeline, st *Stats) error {
	st.NotRead = NotReadStats{ByProblem: map[string]int{}, Paths: []NotReadPath{}}
	if err := eachRow(ctx, p.Store(), `SELECT problem, count(*) FROM source_problems GROUP BY problem`, func(scan scanFunc) error {
		var k string
		var n int
		err := scan(&k, &n)
		st.NotRead.ByProblem[k] = n
		return err
	}); err != nil {
		return err
	}
	return eachRow(ctx, p.Store(), fmt.Sprintf(`SELECT path, problem, detail, failures, first_at, last_at FROM source_problems
		ORDER BY last_at DESC, path LIMIT %d`, maxNotRead), func(scan scanFunc) error {
		var r NotReadPath
		if err := scan(&r.Path, &r.Problem, &r.Detail, &r.Failures, &r.Since, &r.Last); err != nil {
			return err
		}
		st.NotRead.Paths = append(st.NotRead.Paths, r)
		return nil
	})
}

// ClaimStats is facts an integrate run holds: who claimed them and when,
// so claimed facts never read as pending with no reason.
type ClaimStats struct {
	Facts int    `json:"facts"`
	Since string `json:"since"`
	// By names the claimer ("pid N on host", or an older recollect's
	// unnamed claim); Host and PID are empty for an unnamed one.
	By   string `json:"by"`
	Host string `json:"host,omitempty"`
	PID  int    `json:"pid,omitempty"`
	// Gone is true when the claimer no longer runs: the next integrate
	// run takes the facts over.
	Gone bool `json:"gone"`
}

func claimStats(ctx context.Context, p *pipeline.Pipeline, st *Stats) error {
	st.Claims = []ClaimStats{}
	return eachRow(ctx, p.Store(), `SELECT claim_token, count(*) FROM session_facts WHERE status = 'claimed' AND claim_token IS NOT NULL
		GROUP BY claim_token ORDER BY claim_token`, func(scan scanFunc) error {
		var tok string
		var n int
		if err := scan(&tok, &n); err != nil {
			return err
		}
		c, err := integrate.ParseClaim(tok)
		if err != nil {
			st.Claims = append(st.Claims, ClaimStats{Facts: n, By: "unknown: " + err.Error()})
			return nil
		}
		st.Claims = append(st.Claims, ClaimStats{Facts: n, Since: store.FormatTime(c.At), By: c.String(), Host: c.Host, PID: c.PID, Gone: !c.Alive()})
		return nil
	})
}

// signStats reads which stored facts the next integrate run signs again
// (integrate.SignStored): the marker a migration leaves, gone once done.
func signStats(ctx context.Context, p *pipeline.Pipeline, st *Stats) error {
	return eachRow(ctx, p.Store(), `SELECT upto FROM fact_signature_backfill`, func(scan scanFunc) error {
		var upto int64
		if err := scan(&upto); err != nil {
			return err
		}
		st.SignUpTo = max(st.SignUpTo, upto)
		return nil
	})
}
