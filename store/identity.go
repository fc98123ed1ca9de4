package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
)

// NewIdentity writes a new random identity into the store, replacing any
// it held, and returns it. recollect writes one when it makes a store and
// when the user approves one; the approval records it, so a database
// whose content was swapped for another's is refused.
func NewIdentity(ctx context.Context, db *DB) (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make store identity: %w", err)
	}
	id := hex.EncodeToString(b)
	err := db.Tx(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM store_identity`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO store_identity(id, written_at) VALUES (?, ?)`, id, Now())
		return err
	})
	if err != nil {
		return "", fmt.Errorf("write store identity: %w", err)
	}
	return id, nil
}

// Identity reads the store's identity; "" when it holds none.
func Identity(ctx context.Context, q Querier) (string, error) {
	var id string
	err := q.QueryRowContext(ctx, `SELECT id FROM store_identity ORDER BY written_at DESC LIMIT 1`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read store identity: %w", err)
	}
	return id, nil
}
