package store

import "database/sql"

// Wrap makes a store of a handle that another engine's package opened and
// migrated (store/postgres), so that package can import store without
// store importing it. dir is the data directory, which still holds the
// config, socket and logs; where names the database in messages (a schema
// on a server) as Path names SQLite's file.
func Wrap(raw *sql.DB, eng Engine, dir, where string) *DB {
	return &DB{DB: raw, eng: eng, Dir: dir, Path: where}
}
