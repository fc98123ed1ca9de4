package hookctx

// Reused is how many contexts b gave again without rendering.
func Reused(b *Briefings) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reused
}

// KindQuery is kindQuery; KindConds are the session start's conditions on
// kind.
var (
	KindQuery = kindQuery
	KindConds = []string{taskKinds, ruleKinds, changeKinds}
)
