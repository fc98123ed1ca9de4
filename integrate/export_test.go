package integrate

import "strings"

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
