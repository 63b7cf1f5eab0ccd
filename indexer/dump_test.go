package indexer_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/indexer"
)

// dump is a canonical text of every table: tables by name, their columns in
// order, rows sorted by every column.
func dump(t *testing.T, db *indexer.DB) string {
	t.Helper()
	ctx := context.Background()
	var tables []string
	colsOf := func(table string) []string {
		return queryStrings(t, db.SQL(), `SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
	}
	if db.Dialect() == "sqlite" {
		tables = queryStrings(t, db.SQL(), `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	} else {
		tables = queryStrings(t, db.SQL(), `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`)
		colsOf = func(table string) []string {
			return queryStrings(t, db.SQL(), `SELECT column_name FROM information_schema.columns
				WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`, table)
		}
	}
	var b strings.Builder
	for _, table := range tables {
		cols := colsOf(table)
		fmt.Fprintf(&b, "== %s (%s)\n", table, strings.Join(cols, ", "))
		rows, err := db.SQL().QueryContext(ctx, fmt.Sprintf(`SELECT * FROM %q ORDER BY %s`, table, strings.Join(quote(cols), ", ")))
		require.NoError(t, err)
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			require.NoError(t, rows.Scan(ptrs...))
			for i, v := range vals {
				if i > 0 {
					b.WriteString(" | ")
				}
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%v", v)
			}
			b.WriteString("\n")
		}
		require.NoError(t, rows.Err())
		require.NoError(t, rows.Close())
	}
	return b.String()
}

func quote(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = fmt.Sprintf("%q", c)
	}
	return out
}

func queryStrings(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		out = append(out, s)
	}
	require.NoError(t, rows.Err())
	return out
}

// count is the number of rows of a table.
func count(t *testing.T, db *indexer.DB, table string) int {
	t.Helper()
	var n int
	require.NoError(t, db.SQL().QueryRow(fmt.Sprintf(`SELECT COUNT(*) FROM %q`, table)).Scan(&n))
	return n
}
