// Package postgres is recollect's second storage engine: one store is one
// PostgreSQL schema, reached through jackc/pgx v5's database/sql adapter.
// It owns the connection (the URL from an environment variable, never from
// config.json; the schema as the connection's search_path), the schema's
// versioned migrations with the same meaning as SQLite's, and the
// translation of the stages' portable SQL (`?` placeholders) to
// PostgreSQL's (`$n`).
//
// It knows nothing of transcripts, models or ranking, and nothing of the
// store package above it: store chooses the engine, this package only
// speaks PostgreSQL.
package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// Config says where a store lives on a server: the variable that holds the
// connection URL (DefaultURLEnv when empty) and the schema (the data
// directory's name when empty). Getenv reads the variable (os.Getenv when
// nil).
type Config struct {
	URLEnv string
	Schema string
	Getenv func(string) string
}

// OpenStore opens (creating and migrating if needed) the store of data
// directory dir in its schema on the server, as sqlite.Open does for a
// SQLite file. The directory, created 0700 if missing, still holds the
// config, socket and logs.
func OpenStore(ctx context.Context, dir string, c Config) (*store.DB, error) {
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	url, err := urlFrom(getenv, c.URLEnv)
	if err != nil {
		return nil, err
	}
	schema := c.Schema
	if schema == "" {
		schema = DefaultSchema(dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory %s: %w", dir, err)
	}
	return OpenStoreURL(ctx, dir, url, schema)
}

// OpenStoreURL is OpenStore with the URL and schema given.
func OpenStoreURL(ctx context.Context, dir, url, schema string) (*store.DB, error) {
	raw, where, err := open(ctx, url, schema)
	if err != nil {
		return nil, err
	}
	return store.Wrap(raw, Engine{Schema: schema}, dir, where), nil
}

// DefaultSchema is the schema a data directory's store lives in when
// config.json names none: the directory's name, lower-cased, with every
// character PostgreSQL would need quoted replaced by _. A directory named
// .recollect (a project's store, or ~/.recollect) lends the name of the
// directory holding it, so two projects' stores are two schemas.
func DefaultSchema(dir string) string {
	dir = filepath.Clean(dir)
	if filepath.Base(dir) == ".recollect" {
		dir = filepath.Dir(dir)
	}
	name := strings.TrimLeft(filepath.Base(dir), ".")
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if config.SchemaRune(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || config.ReservedSchema(s) {
		s = "recollect_" + s
	}
	if len(s) > config.MaxSchemaName {
		s = s[:config.MaxSchemaName]
	}
	return s
}

// DefaultURLEnv is the environment variable the connection URL is read
// from unless storage.postgres.url_env names another.
const DefaultURLEnv = "RECOLLECT_POSTGRES_URL"

// ErrNoURL means the environment variable that should hold the connection
// URL is unset or empty.
var ErrNoURL = errors.New("no PostgreSQL URL")

// ErrUnreachable means the server did not accept a connection.
var ErrUnreachable = errors.New("PostgreSQL server unreachable")

// ErrNewerSchema means the schema was written by a newer recollect.
// It is store.ErrNewerSchema, so that one check serves both engines.
var ErrNewerSchema = store.ErrNewerSchema

// URLFromEnv reads the connection URL from the variable named env (the
// default when env is empty), or, when the environment does not set it,
// from the user's env file (EnvFilePath). A missing variable is ErrNoURL
// with the fix.
func URLFromEnv(env string) (string, error) { return urlFrom(os.Getenv, env) }

func urlFrom(getenv func(string) string, env string) (string, error) {
	if env == "" {
		env = DefaultURLEnv
	}
	u := strings.TrimSpace(getenv(env))
	if u != "" {
		return u, nil
	}
	path := EnvFilePath(getenv)
	if path != "" {
		v, ok, err := lookupEnvFile(path, env)
		if err != nil {
			return "", fmt.Errorf("%w: $%s is not set, and %w", ErrNoURL, env, err)
		}
		if v = strings.TrimSpace(v); ok && v != "" {
			return v, nil
		}
	}
	where := ""
	if path != "" {
		where = " (nor in " + path + ")"
	}
	return "", fmt.Errorf("%w: $%s is not set%s; export %s=postgres://USER@HOST/DB (or name another variable in storage.postgres.url_env), "+
		"and for a daemon or editor that does not start from your shell write it to %s (recollect service print shows how)", ErrNoURL, env, where, env, EnvFileName)
}

// Open connects to the server at url, creates the schema when it is
// missing, makes it the connection's search_path and migrates it to
// SchemaVersion. Every connection of the returned pool works in schema
// and nowhere else.
func Open(ctx context.Context, url, schema string) (*sql.DB, error) {
	db, _, err := open(ctx, url, schema)
	return db, err
}

// open is Open, also naming the store for messages ("schema S on HOST").
func open(ctx context.Context, url, schema string) (*sql.DB, string, error) {
	if err := checkSchemaName(schema); err != nil {
		return nil, "", err
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, "", fmt.Errorf("parse PostgreSQL URL: %w; give a URL such as postgres://USER@HOST:5432/DB?sslmode=require", redact(err))
	}
	cfg.RuntimeParams["search_path"] = schema
	if cfg.ConnectTimeout == 0 {
		// Without connect_timeout in the URL a server whose network
		// drops packets held every command, and every daemon run, for
		// the operating system's connect timeout (minutes).
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	// The stages send the same statement text many times; the extended
	// protocol's statement cache makes that one parse per connection.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	host := Host(cfg.Config)
	db := sql.OpenDB(reachConnector{stdlib.GetConnector(*cfg, stdlib.OptionAfterConnect(registerTypes)), host})
	// A search reads on up to four connections at once (the keyword,
	// entity and semantic arms, then the pending facts beside the hits).
	// database/sql keeps two idle by default and closes the rest as they
	// come back, so a search could connect anew: a server process started,
	// its statement cache empty. Connections used within a few minutes
	// stay open.
	db.SetMaxIdleConns(maxIdleConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		if errors.Is(err, ErrUnreachable) {
			return nil, "", err
		}
		return nil, "", unreachable(host, err)
	}
	// A store at this binary's version, as nearly every open finds it, is
	// checked in one statement; anything else (no schema yet, an older or
	// newer one, an error) takes the locked path below, which says what is
	// wrong. Five round trips fewer for a one-shot command.
	var v int
	if err := db.QueryRowContext(ctx, `SELECT version FROM recollect_schema`).Scan(&v); err == nil && v == SchemaVersion {
		return db, "schema " + schema + " on " + host, nil
	}
	// CREATE SCHEMA IF NOT EXISTS asks for CREATE on the database before it
	// looks for the schema, so a least-privilege role that owns its schema
	// and nothing else (README) was refused: the schema is looked for first.
	var exists bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
		db.Close()
		return nil, "", fmt.Errorf("look for schema %s on %s: %w", schema, host, err)
	}
	if !exists {
		if _, err := db.ExecContext(ctx, `CREATE SCHEMA `+quoteIdent(schema)); err != nil && !isDuplicateSchema(err) {
			db.Close()
			return nil, "", fmt.Errorf("create schema %s on %s: %w; grant the role CREATE on the database, or create the schema for it", schema, host, err)
		}
	}
	if err := Migrate(ctx, db, schema, SchemaVersion); err != nil {
		db.Close()
		return nil, "", err
	}
	return db, "schema " + schema + " on " + host, nil
}

// reachConnector opens the pool's connections and words a failure to
// connect as ErrUnreachable, naming the host and the fix: a daemon whose
// server went away (stopped, or behind a VPN that dropped) logs and
// reports that sentence at every run until it is back, not the driver's
// bare dial error. The pool reconnects by itself once the server answers.
type reachConnector struct {
	driver.Connector
	host string
}

// Connect opens a connection.
func (c reachConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil && ctx.Err() == nil {
		return nil, unreachable(c.host, err)
	}
	return conn, err
}

// unreachable is ErrUnreachable for host, with the driver's reason on one
// line (no password) and the fix.
func unreachable(host string, err error) error {
	return fmt.Errorf("%w: %s: %v; start the server or fix the URL's host (and its sslmode, user and password)", ErrUnreachable, host, redact(err))
}

// DefaultConnectTimeout is how long a connection may take to open when
// the URL sets no connect_timeout: a server that has not answered by then
// is unreachable.
const DefaultConnectTimeout = 10 * time.Second

// maxIdleConns is how many connections the pool keeps open between
// statements: more than a search uses at once.
const maxIdleConns = 8

// Host names the server a config reaches, for error messages: host:port,
// or the socket directory.
func Host(cfg pgconn.Config) string {
	if strings.HasPrefix(cfg.Host, "/") {
		return "socket " + cfg.Host
	}
	return net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port))
}

// redact drops the connect string pgx puts in some errors, which can hold
// a password, and puts the error on one line (pgx writes one line per
// address it tried).
func redact(err error) error {
	var pe *pgconn.ConnectError
	if errors.As(err, &pe) {
		err = pe.Unwrap()
	}
	if msg := err.Error(); strings.Contains(msg, "\n") {
		return errors.New(strings.Join(slices.Compact(strings.Split(msg, "\n")), "; "))
	}
	return err
}

func isDuplicateSchema(err error) bool {
	// Two processes creating the same schema at once: IF NOT EXISTS is
	// not atomic in PostgreSQL, and the loser sees a unique violation.
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "23505" || pe.Code == "42P06")
}

// checkSchemaName refuses a schema name PostgreSQL would fold, truncate or
// reserve (config.CheckSchemaName), naming the knob.
func checkSchemaName(s string) error {
	if err := config.CheckSchemaName(s); err != nil {
		return fmt.Errorf("storage.postgres.schema: %w", err)
	}
	return nil
}

func quoteIdent(s string) string { return pgx.Identifier{s}.Sanitize() }

// Version reports the schema's version: 0 for a schema with no recollect
// tables yet.
func Version(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var exists bool
	if err := q.QueryRowContext(ctx, `SELECT to_regclass('recollect_schema') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	if err := q.QueryRowContext(ctx, `SELECT version FROM recollect_schema`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// Migrate moves the schema forward to version target, one transaction per
// step, each under a transaction-scoped advisory lock on the schema's name
// so that two daemons starting at once migrate it once. A schema newer
// than this binary is refused, never touched.
func Migrate(ctx context.Context, db *sql.DB, schema string, target int) error {
	if target > len(migrations) {
		return fmt.Errorf("migrate to %d: only %d versions known", target, len(migrations))
	}
	for {
		done, err := migrateStep(ctx, db, schema, target)
		if err != nil || done {
			return err
		}
	}
}

// migrateStep runs the next migration below target, if any; done reports
// that the schema is at target.
func migrateStep(ctx context.Context, db *sql.DB, schema string, target int) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("migrate schema %s: begin: %w", schema, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('recollect migrate ' || $1))`, schema); err != nil {
		return false, fmt.Errorf("migrate schema %s: lock: %w", schema, err)
	}
	cur, err := Version(ctx, tx)
	if err != nil {
		return false, err
	}
	if cur > len(migrations) {
		return false, fmt.Errorf("%w: schema %s is at version %d, this binary knows up to %d; upgrade recollect (go install -tags sqlite_fts5 ./cmd/recollect)",
			ErrNewerSchema, schema, cur, len(migrations))
	}
	if cur >= target {
		return true, nil
	}
	if cur == 0 {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE recollect_schema (version INTEGER NOT NULL);
			INSERT INTO recollect_schema VALUES (0)`); err != nil {
			return false, fmt.Errorf("migrate schema %s: create version table: %w", schema, err)
		}
	}
	if _, err := tx.ExecContext(ctx, migrations[cur]); err != nil {
		return false, fmt.Errorf("migrate schema %s from version %d: %w", schema, cur, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE recollect_schema SET version = $1`, cur+1); err != nil {
		return false, fmt.Errorf("migrate schema %s: set version %d: %w", schema, cur+1, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("migrate schema %s: commit version %d: %w", schema, cur+1, err)
	}
	return cur+1 >= target, nil
}
