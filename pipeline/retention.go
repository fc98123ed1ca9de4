package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// metaRefusal is the meta key holding the last disk-budget refusal, which
// stats reports.
const metaRefusal = "retention.last_refusal"

// Refusal is the last time new raw events were refused for lack of room.
type Refusal struct {
	At      string `json:"at"`
	Message string `json:"message"`
	// Count is how many writes have been refused in all.
	Count int `json:"count"`
}

// DiskBudget is retention.disk_budget in bytes; ok is false when no budget
// is configured.
func (p *Pipeline) DiskBudget() (budget int64, ok bool, err error) {
	b := p.Config.Retention.DiskBudget
	if !b.Set() {
		return 0, false, nil
	}
	if err := b.Err(); err != nil {
		return 0, false, &config.Error{Path: "retention.disk_budget", Msg: err.Error()}
	}
	return b.Int64(), true, nil
}

// EnsureRoom keeps the store within retention.disk_budget before raw events
// are written: at the budget it prunes reclaimable events; when none are
// reclaimable it refuses with store.ErrDiskBudget, records the refusal for
// stats and logs it. Facts are never deleted to make room. pipeline.Open
// installs it as the store's Room check, so every writer that calls
// (*store.DB).EnsureRoom gets it; Record calls it directly.
func (p *Pipeline) EnsureRoom(ctx context.Context) error {
	budget, ok, err := p.DiskBudget()
	if err != nil || !ok {
		return err
	}
	used, err := p.db.UsedBytes(ctx)
	if err != nil {
		return err
	}
	if used < budget {
		return nil
	}
	rep, err := p.Prune(ctx, PruneOptions{Apply: true, Actor: "retention"})
	if err != nil {
		return fmt.Errorf("make room under retention.disk_budget: %w", err)
	}
	after, err := p.db.UsedBytes(ctx)
	if err != nil {
		return err
	}
	// Any reclaimed event is progress: the write goes ahead and the next one
	// prunes again. Only a store with nothing left to reclaim refuses.
	if after < budget || rep.Events > 0 {
		p.Logger().Info("disk budget: pruned reclaimable events", "events", rep.Events, "bytes", rep.Bytes, "used_before", used, "used_after", after, "budget", budget)
		return nil
	}
	refusal := fmt.Errorf("%w: the store holds %s against retention.disk_budget %s and no raw event is reclaimable (each is conversation text, unexamined, cited by a fact or in working memory); new events are refused — run recollect consolidate so extraction examines them, forget facts you no longer need, or raise retention.disk_budget in config.json",
		store.ErrDiskBudget, FormatBytes(after), p.Config.Retention.DiskBudget)
	p.Logger().Error("disk budget: new events refused", "used", after, "budget", budget, "pruned", rep.Events)
	if rerr := p.recordRefusal(context.WithoutCancel(ctx), refusal.Error()); rerr != nil {
		return errors.Join(refusal, rerr)
	}
	return refusal
}

func (p *Pipeline) recordRefusal(ctx context.Context, msg string) error {
	r, _, err := p.LastRefusal(ctx)
	if err != nil {
		return err
	}
	r = Refusal{At: store.Now(), Message: msg, Count: r.Count + 1}
	s, err := jsonString(r)
	if err != nil {
		return err
	}
	return store.SetMeta(ctx, p.db, metaRefusal, s)
}

// LastRefusal reads the last disk-budget refusal; ok is false when no write
// was ever refused.
func (p *Pipeline) LastRefusal(ctx context.Context) (r Refusal, ok bool, err error) {
	s, ok, err := store.GetMeta(ctx, p.db, metaRefusal)
	if err != nil || !ok {
		return r, false, err
	}
	if err := jsonUnmarshal(s, &r); err != nil {
		return r, false, fmt.Errorf("read %s: %w", metaRefusal, err)
	}
	return r, true, nil
}

// FormatBytes renders n in binary units (KiB, MiB, …) for messages and reports.
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
