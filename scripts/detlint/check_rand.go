package detlint

import (
	"go/ast"
	"strconv"

	"golang.org/x/tools/go/ast/inspector"
)

// randPackages are the standard-library randomness sources. Each node would
// draw different numbers, so any use forks consensus; the import itself is
// reported because there is no deterministic way to use these packages.
var randPackages = map[string]bool{
	"math/rand":    true,
	"math/rand/v2": true,
	"crypto/rand":  true,
}

// checkImports reports imports of randomness packages.
func checkImports(r *reporter, file inspector.Cursor) {
	for cur := range file.Preorder((*ast.ImportSpec)(nil)) {
		spec := cur.Node().(*ast.ImportSpec)
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil || !randPackages[path] {
			continue
		}
		r.report(spec, "rand",
			"import of %s is non-deterministic in state-machine code: derive randomness from the block header (e.g. ctx.HeaderHash())",
			path)
	}
}
