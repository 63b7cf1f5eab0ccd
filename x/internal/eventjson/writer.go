// Package eventjson builds typed events' ABCI form without jsonpb's
// reflection: the attributes are, byte for byte, those
// sdk.TypedEventToEvent gives (jsonpb with OrigName and EmitDefaults, each
// top-level field one attribute, keys sorted). A clearing emits three
// events per job, and encoding them through jsonpb was about 40 % of
// EndBlock clearing's time (docs/benchmarks.md, "EndBlock clearing").
// Each event type with a fast form pins it against TypedEventToEvent with
// randomly filled values (eventjsontest.Check).
package eventjson

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Writer appends JSON values as jsonpb writes them. An error sticks: the
// first one is what Builder.Event returns.
type Writer struct {
	buf []byte
	err error
}

// sep writes the comma a value or key needs after an earlier one in its
// object or array.
func (w *Writer) sep() {
	if n := len(w.buf); n > 0 {
		switch w.buf[n-1] {
		case '{', '[', ':':
		default:
			w.buf = append(w.buf, ',')
		}
	}
}

// Open starts an object.
func (w *Writer) Open() *Writer { w.sep(); w.buf = append(w.buf, '{'); return w }

// Close ends an object.
func (w *Writer) Close() { w.buf = append(w.buf, '}') }

// OpenArray starts an array.
func (w *Writer) OpenArray() *Writer { w.sep(); w.buf = append(w.buf, '['); return w }

// CloseArray ends an array.
func (w *Writer) CloseArray() { w.buf = append(w.buf, ']') }

// Key writes an object's field name; its value follows.
func (w *Writer) Key(name string) *Writer {
	w.sep()
	w.buf = append(w.buf, '"')
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, '"', ':')
	return w
}

// Uint64 writes a 64-bit integer as jsonpb does: quoted.
func (w *Writer) Uint64(v uint64) {
	w.sep()
	w.buf = append(w.buf, '"')
	w.buf = strconv.AppendUint(w.buf, v, 10)
	w.buf = append(w.buf, '"')
}

// Uint32 writes a 32-bit integer as a JSON number.
func (w *Writer) Uint32(v uint32) { w.sep(); w.buf = strconv.AppendUint(w.buf, uint64(v), 10) }

// Bool writes true or false.
func (w *Writer) Bool(v bool) { w.sep(); w.buf = strconv.AppendBool(w.buf, v) }

// String writes a string as encoding/json does (HTML-safe escapes, invalid
// UTF-8 replaced). Plain printable ASCII is copied; anything else goes
// through encoding/json itself, so the rare escapes cannot differ.
func (w *Writer) String(s string) {
	w.sep()
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, err := json.Marshal(s)
			if err != nil && w.err == nil {
				w.err = err
			}
			w.buf = append(w.buf, b...)
			return
		}
	}
	w.buf = append(w.buf, '"')
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, '"')
}

// Strings writes a repeated string field; nil is [].
func (w *Writer) Strings(v []string) {
	w.OpenArray()
	for _, s := range v {
		w.String(s)
	}
	w.CloseArray()
}

// Uint64s writes a repeated 64-bit field; nil is [].
func (w *Writer) Uint64s(v []uint64) {
	w.OpenArray()
	for _, x := range v {
		w.Uint64(x)
	}
	w.CloseArray()
}

// Bytes writes a bytes field as encoding/json does: standard base64, and
// null for a nil slice.
func (w *Writer) Bytes(v []byte) {
	w.sep()
	if v == nil {
		w.buf = append(w.buf, "null"...)
		return
	}
	w.buf = append(w.buf, '"')
	w.buf = base64.StdEncoding.AppendEncode(w.buf, v)
	w.buf = append(w.buf, '"')
}

// Enum writes an enum value by its name, or as a bare number when the
// value has none (as jsonpb does with an unknown value).
func (w *Writer) Enum(v int32, names map[int32]string) {
	w.sep()
	if name, ok := names[v]; ok {
		w.buf = append(w.buf, '"')
		w.buf = append(w.buf, name...)
		w.buf = append(w.buf, '"')
		return
	}
	w.buf = strconv.AppendInt(w.buf, int64(v), 10)
}

// Int writes a math.Int as its MarshalJSON does: a quoted decimal, "0" for
// a nil Int.
func (w *Writer) Int(v sdkmath.Int) {
	w.sep()
	w.buf = append(w.buf, '"')
	if v.IsNil() {
		w.buf = append(w.buf, '0')
	} else {
		w.buf = v.BigIntMut().Append(w.buf, 10)
	}
	w.buf = append(w.buf, '"')
}

// Coin writes a cosmos.base.v1beta1.Coin message.
func (w *Writer) Coin(c sdk.Coin) {
	w.Open()
	w.Key("denom").String(c.Denom)
	w.Key("amount").Int(c.Amount)
	w.Close()
}

// Timestamp bounds, as google.protobuf.Timestamp (and so jsonpb) has them.
const (
	minTimestampSeconds = -62135596800 // 0001-01-01T00:00:00Z
	maxTimestampSeconds = 253402300800 // 10000-01-01T00:00:00Z, exclusive
)

// Time writes a stdtime Timestamp: RFC 3339 in UTC with 0, 3, 6 or 9
// fractional digits. A time a Timestamp cannot hold is an error, as in
// jsonpb.
func (w *Writer) Time(t time.Time) {
	w.sep()
	if s := t.Unix(); s < minTimestampSeconds || s >= maxTimestampSeconds {
		if w.err == nil {
			w.err = &TimeRangeError{Time: t}
		}
		w.buf = append(w.buf, "null"...)
		return
	}
	t = t.UTC()
	w.buf = append(w.buf, '"')
	w.buf = t.AppendFormat(w.buf, "2006-01-02T15:04:05")
	if ns := t.Nanosecond(); ns != 0 {
		frac, digits := ns, 9
		switch {
		case ns%1_000_000 == 0:
			frac, digits = ns/1_000_000, 3
		case ns%1_000 == 0:
			frac, digits = ns/1_000, 6
		}
		var d [9]byte
		for i := digits - 1; i >= 0; i-- {
			d[i] = byte('0' + frac%10)
			frac /= 10
		}
		w.buf = append(w.buf, '.')
		w.buf = append(w.buf, d[:digits]...)
	}
	w.buf = append(w.buf, 'Z', '"')
}

// TimeRangeError is a time outside a protobuf Timestamp's range.
type TimeRangeError struct{ Time time.Time }

func (e *TimeRangeError) Error() string {
	return "eventjson: time " + e.Time.String() + " is outside a protobuf Timestamp's range"
}
