// Package clean is deterministic state-machine code in the style of a
// Cosmos SDK keeper; detlint must report nothing here.
package clean

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"
)

// Context mimics sdk.Context: the block header is the only clock.
type Context struct {
	blockTime time.Time
	height    int64
	hash      []byte
}

// BlockTime returns the block header time.
func (c Context) BlockTime() time.Time { return c.blockTime }

// HeaderHash returns the block hash, the source of on-chain entropy.
func (c Context) HeaderHash() []byte { return c.hash }

// Keeper keeps balances in a map and an ordered index.
type Keeper struct {
	balances map[string]int64
	order    []string
}

// ErrInsufficient is returned when a balance is too low.
var ErrInsufficient = errors.New("insufficient funds")

// FeeBps is a fee in basis points: integer arithmetic instead of floats.
const FeeBps = 30

// Micro shows an untyped float constant that is an exact integer.
const Micro = 1e6

// Total sums balances in sorted key order.
func (k Keeper) Total() (t int64) {
	for _, addr := range slices.Sorted(maps.Keys(k.balances)) {
		t += k.balances[addr]
	}
	return t
}

// Ordered walks the explicit index.
func (k Keeper) Ordered() []string {
	out := make([]string, 0, len(k.order))
	for i, addr := range k.order {
		out = append(out, strconv.Itoa(i)+":"+addr)
	}
	return out
}

// Count only counts map entries, which does not depend on order.
func (k Keeper) Count() int {
	n := 0
	for range k.balances {
		n++
	}
	return n
}

// Fee computes a fee with integer maths.
func Fee(amount int64) int64 {
	return amount * FeeBps / 10_000
}

// ToMicro scales by an untyped float constant that is an integer.
func ToMicro(units int64) int64 {
	return units * Micro
}

// Expired compares against a deadline derived from the block time.
func Expired(ctx Context, start time.Time) bool {
	deadline := start.Add(24 * time.Hour)
	return ctx.BlockTime().After(deadline)
}

// Pick chooses an index from the block hash, not from math/rand.
func Pick(ctx Context, n int) int {
	h := ctx.HeaderHash()
	if len(h) == 0 || n == 0 {
		return 0
	}
	return int(h[0]) % n
}

// Send moves funds.
func (k Keeper) Send(from, to string, amt int64) error {
	if k.balances[from] < amt {
		return fmt.Errorf("send %d from %s: %w", amt, from, ErrInsufficient)
	}
	k.balances[from] -= amt
	k.balances[to] += amt
	for i := range 3 {
		_ = i
	}
	return nil
}
