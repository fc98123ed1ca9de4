package integrate_test

import (
	"context"
	"testing"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/extract/model/modeltest"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store/config"
)

// script is a local Ollama host scripted with answers, in call order,
// behind the production router; the stages not routed to it stay on the
// heuristic.
type script struct {
	t    *testing.T
	host *modeltest.Host
}

// newScript routes stages to a scripted host and gives in the router.
func newScript(t *testing.T, in *integrate.Integrator, stages []string, answers ...string) *script {
	t.Helper()
	host := modeltest.NewHost(t, "llama3.2:3b")
	for _, a := range answers {
		host.Enqueue(modeltest.Answer{Content: a})
	}
	in.Config.Intelligence.Provider = "heuristic"
	in.Config.Intelligence.Ollama.Host = host.URL
	in.Config.Intelligence.Ollama.Model = "llama3.2:3b"
	in.Config.Intelligence.Stages = map[string]config.StageRoute{}
	for _, st := range stages {
		in.Config.Intelligence.Stages[st] = config.StageRoute{Provider: "ollama"}
	}
	r, err := model.NewRouter(in.Config.Intelligence, in.DB, func(string) string { return "" }, nil).BeginRun(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	in.Model = r
	return &script{t: t, host: host}
}

// prompts are the user messages of the chat calls whose system prompt
// starts like the stage's, in order.
func (s *script) prompts(stage string) []string {
	s.t.Helper()
	var out []string
	for _, r := range s.host.Requests("/api/chat") {
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if err := r.Decode(&req); err != nil {
			s.t.Fatal(err)
		}
		sys, user := "", ""
		for _, m := range req.Messages {
			switch m.Role {
			case "system":
				sys = m.Content
			case "user":
				user = m.Content
			}
		}
		if integrate.StageOfSystemPrompt(sys) == stage {
			out = append(out, user)
		}
	}
	return out
}

func (s *script) pending() int { return s.host.Pending() }
