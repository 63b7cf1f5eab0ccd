package canon

import (
	cosmos_proto "github.com/cosmos/cosmos-proto"
	"github.com/cosmos/gogoproto/gogoproto"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Kind is how the chain reads a field's text, and so which text of it is
// canonical.
type Kind uint8

const (
	// NotNumber: any text.
	NotNumber Kind = iota
	// IntText: a math.Int or math.Uint custom type, or a cosmos.Int
	// string, read as Go base-0 integer text; in protobuf bytes a
	// math.LegacyDec too (its wire text is its count of 10^-18 units).
	IntText
	// DecText: a cosmos.Dec string, read by math.LegacyNewDecFromStr; in
	// JSON a math.LegacyDec too (its JSON is the decimal it prints).
	DecText
	// Int32: a 32-bit protobuf integer in JSON, a number or a string of one.
	Int32
	// Int64: a 64-bit protobuf integer in JSON, a string (as the SDK writes
	// it) or a number JavaScript reads exactly.
	Int64
)

var (
	scalarOption     = cosmos_proto.E_Scalar.TypeDescriptor().Number()
	customTypeOption = protowire.Number(gogoproto.E_Customtype.Field)
)

// intCustomTypes are the gogoproto custom types whose Unmarshal and
// UnmarshalJSON read base-0 integer text (math's, and the SDK's old aliases
// of them).
var intCustomTypes = map[string]bool{
	"cosmossdk.io/math.Int":                   true,
	"cosmossdk.io/math.Uint":                  true,
	"github.com/cosmos/cosmos-sdk/types.Int":  true,
	"github.com/cosmos/cosmos-sdk/types.Uint": true,
}

// decCustomTypes are the LegacyDec custom types: integer text in protobuf
// bytes, decimal text in JSON.
var decCustomTypes = map[string]bool{
	"cosmossdk.io/math.LegacyDec":            true,
	"github.com/cosmos/cosmos-sdk/types.Dec": true,
}

// WireKind is how the chain reads a string or bytes field's text in
// protobuf bytes (IntText, DecText or NotNumber).
func WireKind(fd protoreflect.FieldDescriptor) Kind {
	if k := fd.Kind(); k != protoreflect.StringKind && k != protoreflect.BytesKind {
		return NotNumber
	}
	scalar, customType := numberOptions(fd)
	switch {
	case intCustomTypes[customType] || decCustomTypes[customType]:
		return IntText
	case scalar == "cosmos.Int":
		return IntText
	case scalar == "cosmos.Dec" && customType == "":
		return DecText
	default:
		return NotNumber
	}
}

// JSONKind is how the SDK's JSON codec (gogoproto's jsonpb) reads a
// field's JSON value: text fields as WireKind says, except that a
// LegacyDec's JSON is decimal text, and protobuf integers as Int32 or
// Int64. Floats, bools and enums are NotNumber.
func JSONKind(fd protoreflect.FieldDescriptor) Kind {
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return Int32
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return Int64
	}
	if _, customType := numberOptions(fd); decCustomTypes[customType] {
		return DecText
	}
	return WireKind(fd)
}

// numberOptions reads a field's cosmos_proto.scalar and gogoproto.customtype
// options. They are read from the options' encoding so that it does not
// matter whether the gogoproto extension is registered with the protobuf
// runtime that built the descriptor.
func numberOptions(fd protoreflect.FieldDescriptor) (scalar, customType string) {
	opts := fd.Options()
	if opts == nil || !opts.ProtoReflect().IsValid() {
		return "", ""
	}
	bz, err := proto.MarshalOptions{Deterministic: true}.Marshal(opts)
	if err != nil {
		return "", ""
	}
	for len(bz) > 0 {
		num, typ, n := protowire.ConsumeTag(bz)
		if n < 0 {
			return "", ""
		}
		bz = bz[n:]
		if typ == protowire.BytesType && (num == scalarOption || num == customTypeOption) {
			v, m := protowire.ConsumeBytes(bz)
			if m < 0 {
				return "", ""
			}
			if num == scalarOption {
				scalar = string(v)
			} else {
				customType = string(v)
			}
			bz = bz[m:]
			continue
		}
		if n = protowire.ConsumeFieldValue(num, typ, bz); n < 0 {
			return "", ""
		}
		bz = bz[n:]
	}
	return scalar, customType
}
