package pipeline

import (
	"fmt"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store/config"
)

// SourceSummary is one line about a source for a log or a terminal: home
// found or not, project folders, matched, skipped and why.
func SourceSummary(r sources.SourceReport) string {
	switch {
	case !r.HomeFound:
		return fmt.Sprintf("%s source: home %s not found; fix sources[].home in config.json", r.Kind, r.Home)
	case !r.ProjectsFound:
		return fmt.Sprintf("%s source: home %s has no projects folder yet (no conversation recorded there)", r.Kind, r.Home)
	}
	line := fmt.Sprintf("%s source %s: %s seen; %s matched", r.Kind, r.Home, plural(r.ProjectFolders, "project folder"), plural(r.Matched, "transcript"))
	if r.Cwd != "" {
		line += " (cwd " + r.Cwd + ")"
	}
	var skipped []string
	if r.SkippedOtherCwd > 0 {
		s := fmt.Sprintf("%d of another project", r.SkippedOtherCwd)
		if len(r.OtherCwds) > 0 {
			s += fmt.Sprintf(" (e.g. %s)", r.OtherCwds[0])
		}
		skipped = append(skipped, s)
	}
	if r.SkippedSubagent > 0 {
		skipped = append(skipped, fmt.Sprintf("%d subagent (include_subagents is off)", r.SkippedSubagent))
	}
	if r.SkippedNotRegular > 0 {
		skipped = append(skipped, fmt.Sprintf("%d not a regular file (a FIFO, socket or device; never opened)", r.SkippedNotRegular))
	}
	if r.SkippedNoCwd > 0 {
		skipped = append(skipped, fmt.Sprintf("%d recording no cwd yet", r.SkippedNoCwd))
	}
	if r.Unreadable > 0 {
		skipped = append(skipped, plural(r.Unreadable, "unreadable folder"))
	}
	for i, s := range skipped {
		if i == 0 {
			line += "; skipped " + s
		} else {
			line += ", " + s
		}
	}
	if r.Matched == 0 && r.Cwd != "" && r.SkippedOtherCwd > 0 {
		line += "; nothing matches: check sources[].cwd in config.json"
	}
	return line
}

func plural(n int, noun string) string { return text.Plural(n, noun) }

// LogSources logs one line per configured source of a copy store (a
// warning when it matches nothing), as the daemon does once at start, so
// a wrong cwd or a typo in home is in the log, not only in stats.
func (p *Pipeline) LogSources() {
	if p.Config.Mode != config.ModeCopy {
		return
	}
	reps, err := sources.Diagnose(p.Config.Sources, p.Getenv)
	if err != nil {
		p.Logger().Warn("sources: cannot walk them", "err", err)
		return
	}
	for _, r := range reps {
		if r.Matched == 0 {
			p.Logger().Warn(SourceSummary(r))
		} else {
			p.Logger().Info(SourceSummary(r))
		}
	}
}
