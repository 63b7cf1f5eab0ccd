package eventjson

import (
	"context"
	"slices"
	"strings"

	abci "github.com/cometbft/cometbft/abci/types"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Event is a typed event that builds its own ABCI form.
type Event interface {
	// ABCIEvent is sdk.TypedEventToEvent of the event.
	ABCIEvent() (sdk.Event, error)
}

// Emit emits a typed event through its fast form.
func Emit(ctx context.Context, e Event) error {
	ev, err := e.ABCIEvent()
	if err != nil {
		return err
	}
	sdk.UnwrapSDKContext(ctx).EventManager().EmitEvent(ev)
	return nil
}

// Builder gathers one event's attributes, each a top-level field's JSON.
// The values share one buffer and one string.
type Builder struct {
	w    Writer
	typ  string
	keys []string
	ends []int
}

// NewBuilder starts an event of the given type (the message's full proto
// name) with room for n attributes.
func NewBuilder(typ string, n int) *Builder {
	return &Builder{typ: typ, keys: make([]string, 0, n), ends: make([]int, 0, n), w: Writer{buf: make([]byte, 0, 64*n)}}
}

// Attr starts the attribute for a top-level field; its value is what is
// written next.
func (b *Builder) Attr(key string) *Writer {
	if len(b.keys) > 0 {
		b.ends = append(b.ends, len(b.w.buf))
	}
	b.keys = append(b.keys, key)
	// A value starts a fresh JSON text: no separator before it.
	b.w.buf = append(b.w.buf, ':')
	return &b.w
}

// Event is the finished event, its attributes sorted by key.
func (b *Builder) Event() (sdk.Event, error) {
	if b.w.err != nil {
		return sdk.Event{}, b.w.err
	}
	b.ends = append(b.ends, len(b.w.buf))
	all := string(b.w.buf)
	attrs := make([]abci.EventAttribute, len(b.keys))
	start := 0
	for i, key := range b.keys {
		// Each value follows the ':' Attr wrote.
		attrs[i] = abci.EventAttribute{Key: key, Value: all[start+1 : b.ends[i]]}
		start = b.ends[i]
	}
	slices.SortFunc(attrs, func(x, y abci.EventAttribute) int { return strings.Compare(x.Key, y.Key) })
	return sdk.Event{Type: b.typ, Attributes: attrs}, nil
}
