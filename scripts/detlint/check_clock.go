package detlint

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/edge"
	"golang.org/x/tools/go/ast/inspector"
)

// wallClockFuncs are the time package functions that read the local clock,
// with the advice given for each. Validators' clocks differ; the only time
// all of them agree on is the block time.
var wallClockFuncs = map[string]string{
	"Now":   "use ctx.BlockTime()",
	"Since": "compute durations from ctx.BlockTime()",
	"Until": "compute durations from ctx.BlockTime()",
}

// checkWallClock reports every reference to time.Now, time.Since and
// time.Until, not just calls: storing time.Now in a variable is as bad as
// calling it.
func checkWallClock(r *reporter, file inspector.Cursor) {
	info := r.pass.TypesInfo
	for cur := range file.Preorder((*ast.Ident)(nil)) {
		id := cur.Node().(*ast.Ident)
		fn, ok := info.Uses[id].(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "time" {
			continue
		}
		if sig, _ := fn.Type().(*types.Signature); sig == nil || sig.Recv() != nil {
			continue // a method such as Time.Sub is fine
		}
		advice, ok := wallClockFuncs[fn.Name()]
		if !ok {
			continue
		}
		// Report the whole "time.Now" selector when there is one, so the
		// diagnostic underlines what the reader wrote.
		var rng analysis.Range = id
		if k, _ := cur.ParentEdge(); k == edge.SelectorExpr_Sel {
			rng = cur.Parent().Node()
		}
		r.report(rng, "time", "time.%s is non-deterministic in state-machine code: %s", fn.Name(), advice)
	}
}
