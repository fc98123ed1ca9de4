package integrate

import (
	"context"
	"strings"
)

// PigeonholeWords exposes pigeonholeWords to the tests.
var PigeonholeWords = pigeonholeWords

// StageOfSystemPrompt names the stage whose system prompt sys is.
func StageOfSystemPrompt(sys string) string {
	for stage, p := range map[string]string{"classify": classifySystem, "entities": entitiesSystem,
		"reconcile": reconcileSystem, "supersede": supersedeSystem, "summarise": summariseSystem} {
		if strings.HasPrefix(sys, p) {
			return stage
		}
	}
	return ""
}

// Claim exposes claim to the tests: it claims the pending facts and
// returns the token.
func (in *Integrator) Claim(ctx context.Context) (string, int, error) { return in.claim(ctx) }

// Read reads a statement through the Readings, as supersession does.
func (rs *Readings) Read(content, speaker string) { rs.get(content, speaker) }

// Stats reports how many statements were asked for, how many of them were
// read anew, and how many readings are held.
func (rs *Readings) Stats() (lookups, misses, held int) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.lookups, rs.misses, len(rs.cur) + len(rs.old)
}
