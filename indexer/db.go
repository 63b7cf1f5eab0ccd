package indexer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // the "sqlite" database/sql driver
)

// DB is the index database: an SQLite file in WAL mode, or a PostgreSQL
// database (dialect.go).
type DB struct {
	sql *conn
	// stmts caches the indexing statements, prepared once: parsing them
	// anew for every row was half the cost of indexing a block.
	stmtsMu sync.Mutex
	stmts   map[string]*sql.Stmt
}

// ErrSchemaTooNew is returned by Open for a database migrated by a newer
// build than this one: its tables may mean something this code does not know.
var ErrSchemaTooNew = errors.New("index: database schema is newer than this build")

// IsPostgres reports whether target names a PostgreSQL database (a
// postgres:// or postgresql:// URL) rather than an SQLite file.
func IsPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// Open opens the index database target names and brings its schema up to
// date: a PostgreSQL database for a postgres:// URL (its schema must be
// this index's alone), else the SQLite file at that path, created if
// needed.
func Open(target string) (*DB, error) {
	if IsPostgres(target) {
		return openPostgres(target)
	}
	return openSQLite(target)
}

func openPostgres(dsn string) (*DB, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	d := &DB{sql: newConn(db, postgresDialect), stmts: map[string]*sql.Stmt{}}
	if err := d.migrate(context.Background()); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("migrate index (postgres): %w", err)
	}
	return d, nil
}

func openSQLite(path string) (*DB, error) {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// BEGIN IMMEDIATE: a block's transaction takes the write lock before it
	// reads the cursor, so two writers cannot both see the same cursor.
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	d := &DB{sql: newConn(db, sqliteDialect), stmts: map[string]*sql.Stmt{}}
	if err := d.migrate(context.Background()); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("migrate index %s: %w", path, err)
	}
	return d, nil
}

// Close closes the database.
func (d *DB) Close() error {
	d.stmtsMu.Lock()
	for _, st := range d.stmts {
		_ = st.Close()
	}
	d.stmts = map[string]*sql.Stmt{}
	d.stmtsMu.Unlock()
	return d.sql.Close()
}

// stmt returns the prepared statement for query, preparing it once.
func (d *DB) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	d.stmtsMu.Lock()
	defer d.stmtsMu.Unlock()
	if st, ok := d.stmts[query]; ok {
		return st, nil
	}
	st, err := d.sql.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	d.stmts[query] = st
	return st, nil
}

// SQL returns the underlying database for callers that need a query this
// package does not offer.
func (d *DB) SQL() *sql.DB { return d.sql.DB }

// Dialect is "sqlite" or "postgres".
func (d *DB) Dialect() string { return d.sql.dialect.String() }

// SchemaVersion is the schema version this build migrates to.
func SchemaVersion() int { return len(migrations) }

// Cursor returns the last fully indexed height, 0 when none is.
func (d *DB) Cursor(ctx context.Context) (int64, error) {
	var h int64
	if err := d.sql.QueryRowContext(ctx, `SELECT height FROM cursor WHERE id = 1`).Scan(&h); err != nil {
		return 0, fmt.Errorf("read cursor: %w", err)
	}
	return h, nil
}

// migrate applies the steps not yet recorded in schema_migrations, each in
// its own transaction with its record.
func (d *DB) migrate(ctx context.Context) error {
	if err := d.migrationTx(ctx, func(tx *tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY
		)`)
		return err
	}); err != nil {
		return err
	}
	var have int
	if err := d.sql.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return err
	}
	if have > len(migrations) {
		return fmt.Errorf("%w: database is at version %d, this build knows %d", ErrSchemaTooNew, have, len(migrations))
	}
	for v := have + 1; v <= len(migrations); v++ {
		if err := d.migrationTx(ctx, func(tx *tx) error { return d.applyMigration(ctx, tx, v) }); err != nil {
			return fmt.Errorf("migration %d: %w", v, err)
		}
	}
	return nil
}

// migrationTx runs f in a transaction that holds the migration lock, and
// commits it when f succeeds.
func (d *DB) migrationTx(ctx context.Context, f func(*tx) error) error {
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := d.lockMigrations(ctx, tx); err != nil {
		return err
	}
	if err := f(tx); err != nil {
		return err
	}
	return tx.Commit()
}

func (d *DB) applyMigration(ctx context.Context, tx *tx, v int) error {
	// Checked again inside the write lock: another process may have
	// applied it since we looked.
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, v).Scan(&done); err != nil {
		return err
	}
	if done > 0 {
		return nil
	}
	step := migrations[v-1]
	if d.sql.dialect == postgresDialect {
		step = postgresDDL(step)
	}
	if _, err := tx.ExecContext(ctx, step); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version) VALUES (?)`, v)
	return err
}

// migrationLock is the PostgreSQL advisory lock migrations hold ("idx" in
// ASCII, then the schema's first version).
const migrationLock = 0x696478_01

// lockMigrations serialises migrating processes until tx ends. SQLite's
// BEGIN IMMEDIATE already holds the database; PostgreSQL must be told, or
// two processes starting together both create the same tables.
func (d *DB) lockMigrations(ctx context.Context, tx *tx) error {
	if d.sql.dialect != postgresDialect {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(migrationLock))
	return err
}
