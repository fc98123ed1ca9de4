package stats

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"

	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/sources"
)

// SourceStats is one configured source: what it sees on disk now
// (sources.Diagnose) and what the store copied from it.
type SourceStats struct {
	sources.SourceReport
	// FilesCopied counts the transcripts the store has offsets for under
	// this source's home; LastCopy is when one of them last advanced, ""
	// when none has.
	FilesCopied int    `json:"files_copied"`
	LastCopy    string `json:"last_copy,omitempty"`
}

// sourceStats reports every configured source, so a copy store that
// matches nothing says which part is wrong.
func sourceStats(ctx context.Context, p *pipeline.Pipeline, st *Stats) error {
	st.Sources = []SourceStats{}
	if len(p.Config.Sources) == 0 {
		return nil
	}
	reps, err := sources.Diagnose(p.Config.Sources, p.Getenv)
	if err != nil {
		return err
	}
	for _, r := range reps {
		s := SourceStats{SourceReport: r}
		prefix := r.Projects + string(filepath.Separator)
		var last sql.NullString
		err := p.Store().QueryRowContext(ctx, `SELECT count(*), max(updated_at) FROM source_files
			WHERE kind = ? AND substr(path, 1, length(?)) = ?`, r.Kind, prefix, prefix).Scan(&s.FilesCopied, &last)
		if err != nil {
			return fmt.Errorf("read copied files of %s: %w", r.Home, err)
		}
		s.LastCopy = last.String
		st.Sources = append(st.Sources, s)
	}
	return nil
}
