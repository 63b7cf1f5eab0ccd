package detlint

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// mapIterFuncs are library functions whose result yields a map's entries in
// map order: the std maps iterators, and golang.org/x/exp/maps, whose Keys
// and Values return unsorted slices.
var mapIterFuncs = map[string]map[string]bool{
	"maps":                  {"Keys": true, "Values": true, "All": true},
	"golang.org/x/exp/maps": {"Keys": true, "Values": true},
}

// checkMapRanges reports range loops whose iteration order is Go's
// randomised map order. Sort the keys first (e.g. slices.Sorted(maps.Keys(m)))
// or keep the data in an ordered store.
func checkMapRanges(r *reporter, file inspector.Cursor) {
	info := r.pass.TypesInfo
	for cur := range file.Preorder((*ast.RangeStmt)(nil)) {
		stmt := cur.Node().(*ast.RangeStmt)
		// "for range m" observes neither keys nor values, so the order
		// cannot leak into the result; only the (fixed) count matters.
		if isBlank(stmt.Key) && isBlank(stmt.Value) {
			continue
		}
		if isMapType(info.TypeOf(stmt.X)) {
			r.report(stmt.X, "maprange",
				"range over map is non-deterministic in state-machine code: map iteration order is random; iterate over sorted keys")
			continue
		}
		if name, ok := mapIterCall(info, stmt.X); ok {
			r.report(stmt.X, "maprange",
				"range over %s is non-deterministic in state-machine code: it yields map entries in random order; iterate over sorted keys (slices.Sorted(maps.Keys(m)))",
				name)
		}
	}
}

// isBlank reports whether a range variable is absent or "_".
func isBlank(e ast.Expr) bool {
	if e == nil {
		return true
	}
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && id.Name == "_"
}

// isMapType reports whether t's underlying type is a map. For a type
// parameter it reports whether any type in its type set is a map, since the
// loop then ranges over a map for some instantiation.
func isMapType(t types.Type) bool {
	if t == nil {
		return false
	}
	if tp, ok := types.Unalias(t).(*types.TypeParam); ok {
		return typeSetHasMap(tp.Constraint())
	}
	_, ok := t.Underlying().(*types.Map)
	return ok
}

// typeSetHasMap reports whether a constraint admits a map type, looking
// through embedded unions and embedded constraint interfaces.
func typeSetHasMap(constraint types.Type) bool {
	iface, ok := constraint.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	for i := range iface.NumEmbeddeds() {
		switch e := iface.EmbeddedType(i).(type) {
		case *types.Union:
			for j := range e.Len() {
				if _, ok := e.Term(j).Type().Underlying().(*types.Map); ok {
					return true
				}
			}
		default:
			if _, ok := e.Underlying().(*types.Map); ok {
				return true
			}
			if typeSetHasMap(e) {
				return true
			}
		}
	}
	return false
}

// mapIterCall reports whether e is a call of one of mapIterFuncs, returning
// its qualified name for the message.
func mapIterCall(info *types.Info, e ast.Expr) (string, bool) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return "", false
	}
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return "", false
	}
	if !mapIterFuncs[fn.Pkg().Path()][fn.Name()] {
		return "", false
	}
	return fn.Pkg().Name() + "." + fn.Name(), true
}
