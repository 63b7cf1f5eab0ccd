package canon

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
)

var anyName = (&anypb.Any{}).ProtoReflect().Descriptor().FullName()

// JSONChecker finds the numbers in a message's JSON, read as the SDK's JSON
// codec reads it (gogoproto's jsonpb: fields by their proto or JSON name,
// Anys by "@type"), that are not written in plain decimal. The codec reads
// math.Int text with Go's base-0 rules ("0x10" is 16, "007" is 7 in octal)
// and 64-bit integers from JSON numbers past what JavaScript holds exactly,
// so without it the number a person reads in a JSON file and the number
// that is signed can differ. Safe for concurrent use.
type JSONChecker struct {
	resolver protodesc.Resolver
	kinds    sync.Map // protoreflect.FieldDescriptor → Kind
}

// NewJSONChecker returns a checker that finds the messages an Any names
// with resolver (the interface registry's, as the codec's).
func NewJSONChecker(resolver protodesc.Resolver) *JSONChecker {
	return &JSONChecker{resolver: resolver}
}

// Check checks bz, JSON of md. It returns a *NumberError naming the first
// refused number by its path from root ("bid.spec.max_price.amount";
// with root "", "body.messages[0].amount[0].amount"), or another error if
// bz is not JSON or an Any names a type the resolver does not know. A
// value of the wrong JSON type is left to the codec, which refuses it.
func (c *JSONChecker) Check(bz []byte, md protoreflect.MessageDescriptor, root string) error {
	v, err := parseJSON(bz)
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return c.message(v, md, root, maxDepth)
}

// message checks v, JSON of md.
func (c *JSONChecker) message(v jsonValue, md protoreflect.MessageDescriptor, path string, depth int) error {
	if depth == 0 {
		return fmt.Errorf("%s: messages nested deeper than %d", path, maxDepth)
	}
	switch {
	case md.FullName() == anyName:
		return c.any(v, path, depth)
	case isWrapper(md): // google.protobuf.UInt64Value and kin: the bare value
		return c.single(v, md.Fields().ByNumber(1), path, depth)
	case v.kind != jsonObject:
		return nil
	}
	fields := md.Fields()
	for _, m := range v.members {
		// The codec takes a field by its proto name or its JSON name.
		fd := fields.ByJSONName(m.key)
		if fd == nil {
			fd = fields.ByName(protoreflect.Name(m.key))
		}
		if fd == nil {
			continue // unknown: the codec refuses it
		}
		if err := c.field(m.val, fd, join(path, m.key), depth); err != nil {
			return err
		}
	}
	return nil
}

// any checks the message an Any packs: the object's other members, as the
// message "@type" names (the last "@type", as the codec reads it); a
// well-known type's JSON is its "value".
func (c *JSONChecker) any(v jsonValue, path string, depth int) error {
	if v.kind != jsonObject {
		return nil
	}
	typeURL, found := "", false
	for _, m := range v.members {
		if m.key == "@type" && m.val.kind == jsonString {
			typeURL, found = m.val.text, true
		}
	}
	if !found {
		return nil // the codec refuses an Any without "@type"
	}
	name := protoreflect.FullName(typeURL[strings.LastIndexByte(typeURL, '/')+1:])
	d, err := c.resolver.FindDescriptorByName(name)
	if err != nil {
		return fmt.Errorf("%s: Any of type %q: %w", path, typeURL, err)
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return fmt.Errorf("%s: Any of type %q: not a message", path, typeURL)
	}
	if strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
		for _, m := range v.members {
			if m.key == "value" {
				if err := c.message(m.val, md, join(path, "value"), depth-1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	inner := jsonValue{kind: jsonObject, members: make([]jsonMember, 0, len(v.members))}
	for _, m := range v.members {
		if m.key != "@type" {
			inner.members = append(inner.members, m)
		}
	}
	return c.message(inner, md, path, depth-1)
}

// field checks a field's value: each element of a list, each key and value
// of a map, or the one value.
func (c *JSONChecker) field(v jsonValue, fd protoreflect.FieldDescriptor, path string, depth int) error {
	switch {
	case fd.IsMap():
		if v.kind != jsonObject {
			return nil
		}
		for _, m := range v.members {
			key := jsonValue{kind: jsonString, text: m.key}
			if err := c.single(key, fd.MapKey(), path, depth); err != nil {
				return err
			}
			if err := c.single(m.val, fd.MapValue(), join(path, m.key), depth); err != nil {
				return err
			}
		}
		return nil
	case fd.IsList():
		if v.kind != jsonArray {
			return nil
		}
		for i, e := range v.elems {
			if err := c.single(e, fd, path+"["+strconv.Itoa(i)+"]", depth); err != nil {
				return err
			}
		}
		return nil
	default:
		return c.single(v, fd, path, depth)
	}
}

// single checks one value of fd: a message, or a scalar by its Kind.
func (c *JSONChecker) single(v jsonValue, fd protoreflect.FieldDescriptor, path string, depth int) error {
	if k := fd.Kind(); k == protoreflect.MessageKind || k == protoreflect.GroupKind {
		md, err := c.resolve(fd.Message())
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return c.message(v, md, path, depth-1)
	}
	if v.kind != jsonString && v.kind != jsonNumber {
		return nil // null is the field unset; anything else the codec refuses
	}
	switch c.kind(fd) {
	case IntText, Int32:
		return CheckInt(path, v.text)
	case DecText:
		return CheckDecimal(path, v.text)
	case Int64:
		if err := CheckInt(path, v.text); err != nil || v.kind == jsonString {
			return err
		}
		return checkExactJSON(path, v.text)
	default:
		return nil
	}
}

// resolve finds a message descriptor that was built without its file's
// dependencies (a placeholder) with the resolver.
func (c *JSONChecker) resolve(md protoreflect.MessageDescriptor) (protoreflect.MessageDescriptor, error) {
	if !md.IsPlaceholder() {
		return md, nil
	}
	d, err := c.resolver.FindDescriptorByName(md.FullName())
	if err != nil {
		return nil, fmt.Errorf("message %s: %w", md.FullName(), err)
	}
	resolved, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, fmt.Errorf("%s is not a message", md.FullName())
	}
	return resolved, nil
}

// kind classifies fd once.
func (c *JSONChecker) kind(fd protoreflect.FieldDescriptor) Kind {
	if k, ok := c.kinds.Load(fd); ok {
		return k.(Kind)
	}
	k := JSONKind(fd)
	c.kinds.Store(fd, k)
	return k
}

// wrappers are google.protobuf's scalar wrappers, whose JSON is the bare
// scalar.
var wrappers = map[protoreflect.FullName]bool{
	"google.protobuf.DoubleValue": true, "google.protobuf.FloatValue": true,
	"google.protobuf.Int64Value": true, "google.protobuf.UInt64Value": true,
	"google.protobuf.Int32Value": true, "google.protobuf.UInt32Value": true,
	"google.protobuf.BoolValue": true, "google.protobuf.StringValue": true,
	"google.protobuf.BytesValue": true,
}

func isWrapper(md protoreflect.MessageDescriptor) bool { return wrappers[md.FullName()] }

// join is path.key, or key at the root.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
