package store

import (
	"context"
	"errors"
	"fmt"
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

// UsedBytes is the space the store's pages hold: the file's pages (as seen
// through the WAL) minus the free list. Deleted rows return pages to the
// free list, so this falls after a prune even before a vacuum shrinks the
// file, and new writes reuse those pages.
func (db *DB) UsedBytes(ctx context.Context) (int64, error) {
	var pages, free, size int64
	if err := db.QueryRowContext(ctx, `SELECT (SELECT page_count FROM pragma_page_count()), (SELECT freelist_count FROM pragma_freelist_count()), (SELECT page_size FROM pragma_page_size())`).Scan(&pages, &free, &size); err != nil {
		return 0, fmt.Errorf("measure %s: %w", db.Path, err)
	}
	return (pages - free) * size, nil
}
