package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxDepth bounds the nesting of JSON values and of messages, as the SDK's
// tx decoder bounds protobuf's.
const maxDepth = 10_000

// jsonValue is a JSON value as written: an object keeps every member in
// order, a repeated key too (encoding/json, under the SDK's codec, keeps
// the last; every copy is checked), and a number keeps its literal.
type jsonValue struct {
	kind    jsonKind
	text    string // a string's (unescaped) text or a number's literal
	members []jsonMember
	elems   []jsonValue
}

type jsonMember struct {
	key string
	val jsonValue
}

type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonObject
	jsonArray
)

// parseJSON reads the first JSON value in bz, as json.Decoder.Decode (the
// SDK codec's reader) does: what follows it is not read.
func parseJSON(bz []byte) (jsonValue, error) {
	dec := json.NewDecoder(bytes.NewReader(bz))
	dec.UseNumber()
	v, err := readJSON(dec, maxDepth)
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return v, err
}

func readJSON(dec *json.Decoder, depth int) (jsonValue, error) {
	if depth == 0 {
		return jsonValue{}, fmt.Errorf("JSON nested deeper than %d", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return jsonValue{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return readObject(dec, depth)
		}
		return readArray(dec, depth)
	case string:
		return jsonValue{kind: jsonString, text: t}, nil
	case json.Number:
		return jsonValue{kind: jsonNumber, text: string(t)}, nil
	case bool:
		return jsonValue{kind: jsonBool}, nil
	default: // nil
		return jsonValue{kind: jsonNull}, nil
	}
}

func readObject(dec *json.Decoder, depth int) (jsonValue, error) {
	v := jsonValue{kind: jsonObject}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return v, err
		}
		key, _ := tok.(string) // the decoder allows only a string here
		val, err := readJSON(dec, depth-1)
		if err != nil {
			return v, err
		}
		v.members = append(v.members, jsonMember{key: key, val: val})
	}
	_, err := dec.Token() // '}'
	return v, err
}

func readArray(dec *json.Decoder, depth int) (jsonValue, error) {
	v := jsonValue{kind: jsonArray}
	for dec.More() {
		e, err := readJSON(dec, depth-1)
		if err != nil {
			return v, err
		}
		v.elems = append(v.elems, e)
	}
	_, err := dec.Token() // ']'
	return v, err
}
