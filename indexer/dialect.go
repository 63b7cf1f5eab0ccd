package indexer

import (
	"context"
	"database/sql"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The index runs on embedded SQLite by default and on PostgreSQL when
// given a DSN, with the same migrations and queries. The SQL is written
// once, in the common subset of both, with SQLite's ? placeholders; on
// PostgreSQL this file rewrites each statement once (placeholders to $n,
// the schema's 64-bit INTEGER to BIGINT) and passes booleans as the 0/1
// the schema stores. Nothing else differs.

type dialect int

const (
	sqliteDialect dialect = iota
	postgresDialect
)

func (d dialect) String() string {
	if d == postgresDialect {
		return "postgres"
	}
	return "sqlite"
}

// rebindPostgres writes a statement's ? and ?N placeholders as $n,
// leaving quoted text alone.
func rebindPostgres(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	quote := byte(0)
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
			b.WriteByte(c)
		case c == '\'' || c == '"':
			quote = c
			b.WriteByte(c)
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			b.WriteByte('$')
			if j > i+1 {
				b.WriteString(q[i+1 : j]) // ?N is $N
				i = j - 1
			} else {
				n++
				b.WriteString(strconv.Itoa(n))
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

var (
	integerType  = regexp.MustCompile(`\bINTEGER\b`)
	withoutRowID = regexp.MustCompile(`\)\s*WITHOUT ROWID`)
)

// postgresDDL is a migration step for PostgreSQL: SQLite's INTEGER holds
// 64 bits, PostgreSQL's 32, so every INTEGER column is a BIGINT; tables
// keyed by their primary key (SQLite's WITHOUT ROWID) are what PostgreSQL
// tables are anyway.
func postgresDDL(step string) string {
	return withoutRowID.ReplaceAllString(integerType.ReplaceAllString(step, "BIGINT"), ")")
}

// conn is the database with each statement written for its dialect.
type conn struct {
	*sql.DB
	dialect dialect

	mu      sync.Mutex
	rebound map[string]string
}

func newConn(db *sql.DB, d dialect) *conn {
	return &conn{DB: db, dialect: d, rebound: map[string]string{}}
}

// q is query in the connection's dialect.
func (c *conn) q(query string) string {
	if c.dialect == sqliteDialect {
		return query
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.rebound[query]; ok {
		return r
	}
	r := rebindPostgres(query)
	c.rebound[query] = r
	return r
}

// args are a statement's arguments in the connection's dialect: the schema
// stores booleans as integers 0 and 1, which SQLite converts by itself.
func (c *conn) args(args []any) []any {
	if c.dialect == sqliteDialect {
		return args
	}
	var out []any
	for i, a := range args {
		if b, ok := a.(bool); ok {
			if out == nil {
				out = slices.Clone(args)
			}
			out[i] = boolInt(b)
		}
	}
	if out == nil {
		return args
	}
	return out
}

// forUpdate locks the rows a SELECT reads until the transaction ends, where
// the dialect needs it said: SQLite's writer already holds the database
// (BEGIN IMMEDIATE).
func (c *conn) forUpdate() string {
	if c.dialect == postgresDialect {
		return " FOR UPDATE"
	}
	return ""
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (c *conn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return c.DB.QueryRowContext(ctx, c.q(query), c.args(args)...)
}

func (c *conn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return c.DB.QueryContext(ctx, c.q(query), c.args(args)...)
}

func (c *conn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return c.DB.ExecContext(ctx, c.q(query), c.args(args)...)
}

func (c *conn) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return c.DB.PrepareContext(ctx, c.q(query))
}

func (c *conn) BeginTx(ctx context.Context, opts *sql.TxOptions) (*tx, error) {
	t, err := c.DB.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &tx{Tx: t, c: c}, nil
}

// tx is a transaction with each statement written for its dialect.
type tx struct {
	*sql.Tx
	c *conn
}

func (t *tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.Tx.QueryRowContext(ctx, t.c.q(query), t.c.args(args)...)
}

func (t *tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.Tx.ExecContext(ctx, t.c.q(query), t.c.args(args)...)
}

// stmtExec and stmtQueryRow run a prepared statement in the transaction.
func (t *tx) stmtExec(ctx context.Context, st *sql.Stmt, args ...any) error {
	_, err := t.Tx.StmtContext(ctx, st).ExecContext(ctx, t.c.args(args)...)
	return err
}

func (t *tx) stmtQueryRow(ctx context.Context, st *sql.Stmt, args ...any) *sql.Row {
	return t.Tx.StmtContext(ctx, st).QueryRowContext(ctx, t.c.args(args)...)
}
