package store

import (
	"context"
	"errors"
)

// ErrDiskBudget means the store is at its retention.disk_budget and no raw
// event can be reclaimed, so new raw events are refused. Nothing stored is
// lost: facts are never deleted to make room.
var ErrDiskBudget = errors.New("disk budget reached")

// EnsureRoom must be called by every path that writes raw events, before
// its write transaction opens: it runs the Room check the owner installed
// (pipeline.Open installs the retention.disk_budget check, which prunes
// reclaimable events and refuses with ErrDiskBudget when none are left).
// With no check installed it does nothing.
func (db *DB) EnsureRoom(ctx context.Context) error {
	if db.Room == nil {
		return nil
	}
	return db.Room(ctx)
}

// UsedBytes is the space the store's rows take (see Engine.UsedBytes): it
// falls after a prune even before a vacuum shrinks the file.
func (db *DB) UsedBytes(ctx context.Context) (int64, error) { return db.eng.UsedBytes(ctx, db) }
