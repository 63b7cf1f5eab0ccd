package detlint

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/edge"
	"golang.org/x/tools/go/ast/inspector"
)

// floatAdvice ends every float finding. Floating-point results may differ
// between CPUs, compilers and optimisation choices, and consensus needs them
// bit-identical on every validator.
const floatAdvice = "non-deterministic in state-machine code: floating-point results can differ between platforms; use integers or math.LegacyDec"

// checkFloats reports floating-point types. To give one finding per place a
// float enters the code, rather than one per expression that carries it,
// it reports:
//
//   - each type name that is, or is built on, a float type (a var, field,
//     parameter or result type, a conversion, a composite literal type, a
//     type declaration...);
//   - each use of a variable, field or function declared outside the checked
//     files (another package, or a generated file) whose type involves a
//     float, e.g. math.Sqrt or dec.Float64, since its declaration is never
//     reported;
//   - each variable whose float type is inferred (x := 1.5), unless the
//     initialiser already produced a finding (x := float64(n)).
//
// Untyped float constants are never reported: 1e6 assigned to an int64 is an
// exact integer.
func checkFloats(r *reporter, file inspector.Cursor, checked map[*token.File]bool) {
	info := r.pass.TypesInfo
	for cur := range file.Preorder((*ast.Ident)(nil)) {
		id := cur.Node().(*ast.Ident)
		if obj := info.Uses[id]; obj != nil {
			reportFloatUse(r, cur, obj, checked)
			continue
		}
		v, ok := info.Defs[id].(*types.Var)
		if !ok {
			continue
		}
		b := floatIn(v.Type())
		if b == nil {
			continue
		}
		init, inferred := inferredInit(cur)
		if !inferred || hasFloatOrigin(r.pass, init, checked) {
			continue
		}
		r.report(id, "float", "%s has type %s, which is %s",
			id.Name, types.TypeString(v.Type(), types.RelativeTo(r.pass.Pkg)), floatAdvice)
	}
}

// reportFloatUse reports the identifier at cur, which refers to obj, if it
// is one of the places a float enters the code (see checkFloats).
func reportFloatUse(r *reporter, cur inspector.Cursor, obj types.Object, checked map[*token.File]bool) {
	if !isFloatOrigin(r.pass, obj, checked) {
		return
	}
	id := cur.Node().(*ast.Ident)
	b := floatIn(obj.Type())
	tn, isType := obj.(*types.TypeName)
	switch {
	case !isType:
		r.report(id, "float", "%s involves %s, which is %s", displayName(obj), b, floatAdvice)
	case isConversion(r.pass.TypesInfo, cur) && obj.Type() == types.Type(b):
		r.report(id, "float", "conversion to %s is %s", b, floatAdvice)
	case isConversion(r.pass.TypesInfo, cur):
		r.report(id, "float", "conversion to %s (built on %s) is %s", tn.Name(), b, floatAdvice)
	case obj.Type() == types.Type(b):
		r.report(id, "float", "%s is %s", b, floatAdvice)
	default:
		r.report(id, "float", "type %s is built on %s, which is %s", tn.Name(), b, floatAdvice)
	}
}

// isFloatOrigin reports whether a use of obj is a place where a float enters
// the checked code: a float type name, or a float-typed variable or function
// whose declaration is not itself checked.
func isFloatOrigin(pass *analysis.Pass, obj types.Object, checked map[*token.File]bool) bool {
	switch obj.(type) {
	case *types.TypeName:
		return floatIn(obj.Type()) != nil
	case *types.Var, *types.Func:
		if checked[pass.Fset.File(obj.Pos())] {
			return false // reported at its declaration
		}
		return floatIn(obj.Type()) != nil
	}
	return false
}

// hasFloatOrigin reports whether any of exprs contains a float origin, i.e.
// whether checkFloats reports something inside them.
func hasFloatOrigin(pass *analysis.Pass, exprs []ast.Expr, checked map[*token.File]bool) bool {
	found := false
	for _, e := range exprs {
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if obj := pass.TypesInfo.Uses[id]; obj != nil && isFloatOrigin(pass, obj, checked) {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// inferredInit reports whether the identifier at cur declares a variable
// without writing its type, returning the expressions it is initialised
// from. Variables with a written type are reported at that type instead.
func inferredInit(cur inspector.Cursor) ([]ast.Expr, bool) {
	k, _ := cur.ParentEdge()
	switch parent := cur.Parent().Node().(type) {
	case *ast.AssignStmt:
		if k == edge.AssignStmt_Lhs && parent.Tok == token.DEFINE {
			return parent.Rhs, true
		}
	case *ast.ValueSpec:
		if k == edge.ValueSpec_Names && parent.Type == nil {
			return parent.Values, true
		}
	case *ast.RangeStmt:
		if k == edge.RangeStmt_Key || k == edge.RangeStmt_Value {
			return []ast.Expr{parent.X}, true
		}
	}
	return nil, false
}

// isConversion reports whether the type name at cur is the function part of
// a conversion such as float64(x) or pkg.Rate(x).
func isConversion(info *types.Info, cur inspector.Cursor) bool {
	if k, _ := cur.ParentEdge(); k == edge.SelectorExpr_Sel {
		cur = cur.Parent()
	}
	for {
		if k, _ := cur.ParentEdge(); k != edge.ParenExpr_X {
			break
		}
		cur = cur.Parent()
	}
	k, _ := cur.ParentEdge()
	if k != edge.CallExpr_Fun {
		return false
	}
	call := cur.Parent().Node().(*ast.CallExpr)
	return info.Types[call.Fun].IsType()
}

// displayName names obj for a message: package-level objects are qualified
// with their package name ("math.Sqrt"), methods and fields are not.
func displayName(obj types.Object) string {
	if obj.Pkg() != nil && obj.Parent() == obj.Pkg().Scope() {
		return obj.Pkg().Name() + "." + obj.Name()
	}
	return obj.Name()
}
