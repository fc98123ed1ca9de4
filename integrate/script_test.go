package integrate_test

import (
	"context"
	"sync"
	"testing"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/integrate"
)

// script is a model that answers from a queue, in call order, for the
// routed stages and says "heuristic" for the rest.
type script struct {
	t      *testing.T
	routed map[string]bool
	in     *integrate.Integrator

	mu      sync.Mutex
	answers []string
	asked   []extract.Request
}

var _ integrate.Model = (*script)(nil)

func newScript(t *testing.T, in *integrate.Integrator, stages []string, answers ...string) *script {
	s := &script{t: t, routed: map[string]bool{}, answers: answers, in: in}
	for _, st := range stages {
		s.routed[st] = true
	}
	in.Model = s
	return s
}

func (s *script) Call(ctx context.Context, req extract.Request) (extract.Response, error) {
	if !s.routed[req.Stage] {
		return extract.Response{}, extract.ErrHeuristic
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, req)
	if len(s.answers) == 0 {
		s.t.Errorf("unscripted %s call: %s", req.Stage, req.Prompt)
		return extract.Response{}, context.DeadlineExceeded
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return extract.Response{Text: a, Model: "scripted"}, nil
}

func (s *script) prompts(stage string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.asked {
		if r.Stage == stage {
			out = append(out, r.Prompt)
		}
	}
	return out
}

func (s *script) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.answers)
}
