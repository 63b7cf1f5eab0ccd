package detlint

import (
	"go/ast"

	"golang.org/x/tools/go/ast/inspector"
)

// checkGoStmts reports go statements: goroutines are scheduled differently
// on every node, so anything they touch in state is racy and any result they
// feed back depends on timing.
func checkGoStmts(r *reporter, file inspector.Cursor) {
	for cur := range file.Preorder((*ast.GoStmt)(nil)) {
		stmt := cur.Node().(*ast.GoStmt)
		r.report(stmt, "goroutine",
			"go statement is non-deterministic in state-machine code: goroutine scheduling differs between nodes; do the work sequentially")
	}
}
