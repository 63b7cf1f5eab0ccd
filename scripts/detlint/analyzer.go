package detlint

import (
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// doc is the analyzer's help text, shown by `detlint -help`.
const doc = `report non-deterministic constructs in state-machine code

detlint reports, in packages whose import path matches -scope, uses of
time.Now/Since/Until, imports of math/rand, math/rand/v2 and crypto/rand,
floating-point types, go statements, and range loops over maps (including
maps.Keys/Values/All iterators). Generated files and _test.go files are
skipped. A finding can be silenced with "//detlint:allow <reason>" on its
line or on the line directly above.`

// Analyzer reports non-deterministic constructs in state-machine packages.
// Its -scope flag selects the packages to check (default DefaultScope).
var Analyzer = newAnalyzer()

// newAnalyzer builds an independent Analyzer with its own -scope flag, so
// tests can narrow the scope without mutating the exported Analyzer.
func newAnalyzer() *analysis.Analyzer {
	scope := newScopeFlag(DefaultScope)
	a := &analysis.Analyzer{
		Name:     "detlint",
		Doc:      doc,
		URL:      "https://github.com/idlegpu/idlegpu/tree/main/scripts/detlint",
		Requires: []*analysis.Analyzer{inspect.Analyzer},
	}
	a.Flags.Var(scope, "scope", "regexp of package import paths that are state-machine code")
	a.Run = func(pass *analysis.Pass) (any, error) {
		return run(pass, scope)
	}
	return a
}

// run checks one package, if it is in scope.
func run(pass *analysis.Pass, scope *scopeFlag) (any, error) {
	if !scope.matches(pass.Pkg.Path()) {
		return nil, nil
	}
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)

	// Select the files to check first: the float check needs to know which
	// declarations live in checked files to avoid reporting a float twice.
	var files []inspector.Cursor
	checked := make(map[*token.File]bool)
	for fileCur := range in.Root().Children() {
		f := fileCur.Node().(*ast.File)
		tf := pass.Fset.File(f.FileStart)
		if skipFile(tf, f) {
			continue
		}
		files = append(files, fileCur)
		checked[tf] = true
	}

	for _, fileCur := range files {
		r := newReporter(pass, fileCur.Node().(*ast.File))
		checkImports(r, fileCur)
		checkWallClock(r, fileCur)
		checkFloats(r, fileCur, checked)
		checkGoStmts(r, fileCur)
		checkMapRanges(r, fileCur)
	}
	return nil, nil
}

// skipFile reports whether f is exempt: generated code is not written by us
// (and is regenerated, so directives would be lost), and tests are not part
// of the state machine and may legitimately use the wall clock.
func skipFile(tf *token.File, f *ast.File) bool {
	if tf != nil && strings.HasSuffix(tf.Name(), "_test.go") {
		return true
	}
	return ast.IsGenerated(f)
}
