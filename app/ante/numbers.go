package ante

import (
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	txv1beta1 "cosmossdk.io/api/cosmos/tx/v1beta1"
	errorsmod "cosmossdk.io/errors"

	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"

	"github.com/idlegpu/idlegpu/x/base/canon"
)

// maxDepth bounds nesting, as the SDK's tx decoder does (so a tx that
// decoded never reaches it).
const maxDepth = 10_000

var (
	anyName      = (&anypb.Any{}).ProtoReflect().Descriptor().FullName()
	txBodyDesc   = (&txv1beta1.TxBody{}).ProtoReflect().Descriptor()
	authInfoDesc = (&txv1beta1.AuthInfo{}).ProtoReflect().Descriptor()
)

// NumberChecker finds amounts in a tx's bytes that are not spelled the way
// the chain prints them. It reads the protobuf wire format of the tx body
// and auth info against the message descriptors, into every nested message
// and every google.protobuf.Any, so it covers every message type (bank,
// authz MsgExec, gov proposals, this chain's modules) and the fee. Each byte
// is read once, so the work is linear in the tx's size. Safe for concurrent
// use.
type NumberChecker struct {
	resolver protodesc.Resolver
	kinds    sync.Map // protoreflect.FieldDescriptor → canon.Kind
	json     *canon.JSONChecker
}

// NewNumberChecker returns a checker that resolves the messages packed in
// Anys with resolver: the tx decoder's (TxConfig's signing context), so every
// Any a decoded tx holds is found.
func NewNumberChecker(resolver protodesc.Resolver) *NumberChecker {
	return &NumberChecker{resolver: resolver, json: canon.NewJSONChecker(resolver)}
}

// CheckTxBytes returns ErrNonCanonicalNumber, naming the field, for the first
// number in txBytes (a TxRaw) that is not canonical; sdkerrors.ErrTxDecode if
// the bytes do not parse, or name an Any type the resolver does not know.
func (c *NumberChecker) CheckTxBytes(txBytes []byte) error {
	if len(txBytes) == 0 {
		return errorsmod.Wrap(sdkerrors.ErrTxDecode, "no tx bytes to check")
	}
	for bz := txBytes; len(bz) > 0; {
		num, value, delimited, rest, err := nextField(bz)
		if err != nil {
			return err
		}
		bz = rest
		var fe *fieldError
		switch {
		case !delimited:
		case num == 1: // TxRaw.body_bytes
			fe = under("body", c.message(value, txBodyDesc, maxDepth))
		case num == 2: // TxRaw.auth_info_bytes
			fe = under("auth_info", c.message(value, authInfoDesc, maxDepth))
		}
		if fe != nil {
			return fe.finish()
		}
	}
	return nil
}

// message checks bz, an encoding of desc.
func (c *NumberChecker) message(bz []byte, desc protoreflect.MessageDescriptor, depth int) *fieldError {
	if depth == 0 {
		return &fieldError{err: errorsmod.Wrap(sdkerrors.ErrTxDecode, "messages nested too deep")}
	}
	fields := desc.Fields()
	var seen map[protowire.Number]int // occurrences of repeated fields, for paths
	for len(bz) > 0 {
		num, value, delimited, rest, err := nextField(bz)
		if err != nil {
			return &fieldError{err: err}
		}
		bz = rest
		if !delimited {
			continue
		}
		fd := fields.ByNumber(num)
		if fd == nil { // unknown: the decoder refuses or ignores it
			continue
		}
		index := -1
		if fd.IsList() || fd.IsMap() {
			if seen == nil {
				seen = make(map[protowire.Number]int)
			}
			index = seen[num]
			seen[num]++
		}
		if fe := c.field(value, fd, depth); fe != nil {
			return fe.in(fd.Name(), index)
		}
	}
	return nil
}

// field checks one length-delimited field: a number's text, or a message.
func (c *NumberChecker) field(value []byte, fd protoreflect.FieldDescriptor, depth int) *fieldError {
	switch fd.Kind() {
	case protoreflect.StringKind, protoreflect.BytesKind:
		return c.number(value, c.kind(fd))
	case protoreflect.MessageKind:
		md := fd.Message()
		if md.IsPlaceholder() {
			d, err := c.resolver.FindDescriptorByName(md.FullName())
			if err != nil {
				return &fieldError{err: errorsmod.Wrapf(sdkerrors.ErrTxDecode, "message %s: %v", md.FullName(), err)}
			}
			resolved, ok := d.(protoreflect.MessageDescriptor)
			if !ok {
				return &fieldError{err: errorsmod.Wrapf(sdkerrors.ErrTxDecode, "%s is not a message", md.FullName())}
			}
			md = resolved
		}
		if md.FullName() == anyName {
			return c.any(value, depth-1)
		}
		return c.message(value, md, depth-1)
	default:
		return nil // a packed repeated scalar
	}
}

// any checks the message an Any packs. As in protobuf, the last type_url and
// value given are the ones that count.
func (c *NumberChecker) any(bz []byte, depth int) *fieldError {
	var typeURL string
	var value []byte
	for len(bz) > 0 {
		num, v, delimited, rest, err := nextField(bz)
		if err != nil {
			return &fieldError{err: err}
		}
		bz = rest
		if !delimited {
			continue
		}
		switch num {
		case 1:
			typeURL = string(v)
		case 2:
			value = v
		}
	}
	if typeURL == "" && len(value) == 0 {
		return nil
	}
	name := protoreflect.FullName(typeURL[strings.LastIndexByte(typeURL, '/')+1:])
	d, err := c.resolver.FindDescriptorByName(name)
	if err != nil {
		return &fieldError{err: errorsmod.Wrapf(sdkerrors.ErrTxDecode, "Any of type %q: %v", typeURL, err)}
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return &fieldError{err: errorsmod.Wrapf(sdkerrors.ErrTxDecode, "Any of type %q: not a message", typeURL)}
	}
	return c.message(value, md, depth)
}

// number checks a field's text against its kind.
func (c *NumberChecker) number(text []byte, kind canon.Kind) *fieldError {
	var err error
	switch kind {
	case canon.IntText:
		err = canon.CheckInt("", string(text))
	case canon.DecText:
		err = canon.CheckDecimal("", string(text))
	}
	if err != nil {
		return &fieldError{num: err.(*canon.NumberError)}
	}
	return nil
}

// kind classifies fd once by its options.
func (c *NumberChecker) kind(fd protoreflect.FieldDescriptor) canon.Kind {
	if k, ok := c.kinds.Load(fd); ok {
		return k.(canon.Kind)
	}
	k := canon.WireKind(fd)
	c.kinds.Store(fd, k)
	return k
}

// fieldError is a refusal on its way up from the field it names: the path is
// built from the innermost field out.
type fieldError struct {
	path []string           // innermost first
	num  *canon.NumberError // the refused number, its Field set by finish
	err  error              // a decode error instead of a non-canonical number
}

// in adds the field that holds the failing one (index ≥ 0 for an element of
// a repeated field).
func (e *fieldError) in(name protoreflect.Name, index int) *fieldError {
	seg := string(name)
	if index >= 0 {
		seg += "[" + strconv.Itoa(index) + "]"
	}
	e.path = append(e.path, seg)
	return e
}

// under is in for the top level, where err may be nil.
func under(name string, err *fieldError) *fieldError {
	if err == nil {
		return nil
	}
	err.path = append(err.path, name)
	return err
}

// finish turns the refusal into a registered error naming the field path,
// e.g. body.messages[0].spec.max_price.amount.
func (e *fieldError) finish() error {
	path := make([]string, len(e.path))
	for i, seg := range e.path {
		path[len(path)-1-i] = seg
	}
	if e.err != nil {
		return errorsmod.Wrap(e.err, strings.Join(path, "."))
	}
	e.num.Field = strings.Join(path, ".")
	return errorsmod.Wrap(ErrNonCanonicalNumber, e.num.Error())
}

// nextField reads the first field of bz: its number and, when it is
// length-delimited, its bytes (any other wire type is only skipped).
func nextField(bz []byte) (num protowire.Number, value []byte, delimited bool, rest []byte, err error) {
	num, typ, n := protowire.ConsumeTag(bz)
	if n < 0 {
		return 0, nil, false, nil, decodeError(n)
	}
	bz = bz[n:]
	if typ == protowire.BytesType {
		value, n = protowire.ConsumeBytes(bz)
	} else {
		n = protowire.ConsumeFieldValue(num, typ, bz)
	}
	if n < 0 {
		return 0, nil, false, nil, decodeError(n)
	}
	return num, value, typ == protowire.BytesType, bz[n:], nil
}

func decodeError(n int) error {
	return errorsmod.Wrap(sdkerrors.ErrTxDecode, protowire.ParseError(n).Error())
}
