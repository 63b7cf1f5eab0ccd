package detlint

import "go/types"

// floatIn returns the first floating-point (or complex) basic type that t is
// or is built from, or nil if there is none. It looks through pointers,
// slices, arrays, maps, channels, unnamed structs, function signatures and
// named types, with two deliberate exceptions:
//
//   - named struct and interface types are not entered: their float fields
//     and methods are reported where they are declared (or, for a type from
//     another package or a generated file, where they are used), so flagging
//     every mention of the type would only repeat that finding;
//   - type parameters are not entered: a float in a constraint is reported
//     at the constraint itself.
func floatIn(t types.Type) *types.Basic {
	return floatInSeen(t, make(map[*types.Named]bool))
}

// floatInSeen is floatIn with a set of named types already visited, which
// stops recursion through self-referential types such as
// "type List []*List".
func floatInSeen(t types.Type, seen map[*types.Named]bool) *types.Basic {
	switch t := t.(type) {
	case *types.Basic:
		if t.Info()&(types.IsFloat|types.IsComplex) != 0 {
			return t
		}
	case *types.Alias:
		return floatInSeen(types.Unalias(t), seen)
	case *types.Named:
		if seen[t] {
			return nil
		}
		seen[t] = true
		switch t.Underlying().(type) {
		case *types.Struct, *types.Interface:
			return nil
		}
		return floatInSeen(t.Underlying(), seen)
	case *types.Pointer:
		return floatInSeen(t.Elem(), seen)
	case *types.Slice:
		return floatInSeen(t.Elem(), seen)
	case *types.Array:
		return floatInSeen(t.Elem(), seen)
	case *types.Chan:
		return floatInSeen(t.Elem(), seen)
	case *types.Map:
		if b := floatInSeen(t.Key(), seen); b != nil {
			return b
		}
		return floatInSeen(t.Elem(), seen)
	case *types.Struct:
		for i := range t.NumFields() {
			if b := floatInSeen(t.Field(i).Type(), seen); b != nil {
				return b
			}
		}
	case *types.Signature:
		if b := floatInTuple(t.Params(), seen); b != nil {
			return b
		}
		return floatInTuple(t.Results(), seen)
	case *types.Tuple:
		return floatInTuple(t, seen)
	}
	return nil
}

// floatInTuple applies floatInSeen to each variable of a parameter or
// result list.
func floatInTuple(tuple *types.Tuple, seen map[*types.Named]bool) *types.Basic {
	for i := range tuple.Len() {
		if b := floatInSeen(tuple.At(i).Type(), seen); b != nil {
			return b
		}
	}
	return nil
}
