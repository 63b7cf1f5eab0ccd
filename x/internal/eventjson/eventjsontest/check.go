// Package eventjsontest pins an event's fast ABCI form to
// sdk.TypedEventToEvent: both must give the same event for randomly filled
// values of every field, so a field added to the message and missed by its
// fast form fails the check.
package eventjsontest

import (
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	sdkmath "cosmossdk.io/math"
	"github.com/cosmos/gogoproto/proto"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/eventjson"
)

// Message is an event with a fast form.
type Message interface {
	proto.Message
	eventjson.Event
}

// Check fills n events from newMsg with random values (seeded, so a failure
// repeats) and requires each one's fast form to equal TypedEventToEvent's.
func Check(t *testing.T, n int, newMsg func() Message) {
	t.Helper()
	r := rand.New(rand.NewSource(1))
	for i := range n {
		m := newMsg()
		fill(t, r, reflect.ValueOf(m).Elem(), 0)
		want, err := sdk.TypedEventToEvent(m)
		require.NoError(t, err)
		got, err := m.ABCIEvent()
		require.NoError(t, err)
		require.Equal(t, want, got, "event %d: %#v", i, m)
	}
}

// strings that exercise encoding/json's escapes as well as plain text.
var samples = []string{
	"", "a", "cosmos1qy352eufqy352eufqy352eufqy352euf6wvxs2", "GPU-5c3b0f1e-0f0e-4a59-8b43-c2a8d6b0d7a1",
	`quote " and \ backslash`, "<html>&amp;", "line\nbreak\ttab\r", "\x00\x01\x1f", "é ü 日本", "\u2028\u2029",
	"invalid \xff\xfe utf-8", "\x7f del",
}

func randString(r *rand.Rand) string {
	if r.Intn(3) == 0 {
		var b strings.Builder
		for range r.Intn(12) {
			b.WriteByte(byte(r.Intn(256)))
		}
		return b.String()
	}
	return samples[r.Intn(len(samples))]
}

var (
	timeType = reflect.TypeOf(time.Time{})
	intType  = reflect.TypeOf(sdkmath.Int{})
)

// fill sets every field of v at random; a kind it does not know fails the
// test, so a new field type is noticed.
func fill(t *testing.T, r *rand.Rand, v reflect.Value, depth int) {
	t.Helper()
	switch v.Type() {
	case timeType:
		v.Set(reflect.ValueOf(randTime(r)))
		return
	case intType:
		switch r.Intn(4) {
		case 0:
			v.Set(reflect.ValueOf(sdkmath.Int{}))
		case 1:
			v.Set(reflect.ValueOf(sdkmath.NewInt(r.Int63())))
		case 2:
			v.Set(reflect.ValueOf(sdkmath.NewIntFromUint64(math.MaxUint64).MulRaw(r.Int63())))
		default:
			v.Set(reflect.ValueOf(sdkmath.NewInt(-r.Int63n(1000))))
		}
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if strings.HasPrefix(f.Name, "XXX_") || !f.IsExported() {
				continue
			}
			fill(t, r, v.Field(i), depth+1)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			// bytes: nil, empty or random.
			switch r.Intn(4) {
			case 0:
				v.SetBytes(nil)
			case 1:
				v.SetBytes([]byte{})
			default:
				b := make([]byte, r.Intn(40))
				r.Read(b)
				v.SetBytes(b)
			}
			return
		}
		if r.Intn(4) == 0 {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		n := r.Intn(4)
		if depth > 2 {
			n = r.Intn(2)
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(t, r, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.String:
		v.SetString(randString(r))
	case reflect.Bool:
		v.SetBool(r.Intn(2) == 0)
	case reflect.Uint64:
		v.SetUint([]uint64{0, 1, math.MaxUint64, r.Uint64()}[r.Intn(4)])
	case reflect.Uint32:
		v.SetUint(uint64([]uint32{0, 1, math.MaxUint32, r.Uint32()}[r.Intn(4)]))
	case reflect.Int64:
		v.SetInt([]int64{0, -1, math.MinInt64, math.MaxInt64, r.Int63()}[r.Intn(5)])
	case reflect.Int32:
		// Enums: known values and unknown ones (jsonpb writes those bare).
		v.SetInt(int64(r.Intn(8) - 1))
	default:
		t.Fatalf("eventjsontest: cannot fill a %s (%s)", v.Type(), v.Kind())
	}
}

// randTime is a time a Timestamp holds: zero, or a random instant with 0,
// 3, 6 or 9 significant fractional digits, in UTC or another zone.
func randTime(r *rand.Rand) time.Time {
	if r.Intn(5) == 0 {
		return time.Time{}
	}
	ns := []int64{0, int64(r.Intn(1000)) * 1_000_000, int64(r.Intn(1_000_000)) * 1_000, int64(r.Intn(1_000_000_000))}[r.Intn(4)]
	t := time.Unix(r.Int63n(253402300799-(-62135596800))-62135596800, ns)
	if r.Intn(2) == 0 {
		t = t.In(time.FixedZone("x", 3600*(r.Intn(25)-12)))
	}
	return t
}
