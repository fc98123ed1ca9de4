package extract

import "github.com/recollect/recollect/extract/model"

// bound applies the answer caps to an extract answer's facts and says
// what it cut, per kind.
func bound(facts []modelFact) ([]modelFact, map[string]int64) {
	cut := map[string]int64{}
	if len(facts) > model.MaxFactsPerAnswer {
		cut[model.CutFactsOverAnswerCap] += int64(len(facts) - model.MaxFactsPerAnswer)
		facts = facts[:model.MaxFactsPerAnswer]
	}
	out := facts[:0:0]
	for _, f := range facts {
		if len(f.Content) > model.MaxFactBytes {
			cut[model.CutFactsOverBytes]++
			continue
		}
		if len(f.Entities) > model.MaxEntitiesPerFact {
			cut[model.CutEntitiesOverCap] += int64(len(f.Entities) - model.MaxEntitiesPerFact)
			f.Entities = f.Entities[:model.MaxEntitiesPerFact]
		}
		out = append(out, f)
	}
	return out, cut
}
