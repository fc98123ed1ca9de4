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
