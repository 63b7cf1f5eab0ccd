package types_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// cand is a candidate of provider p (one byte of address) asking price with
// reliability r, n free GPUs, bid order seq.
func cand(p byte, price int64, r uint32, n int, seq uint64) types.Candidate {
	gpus := make([]string, n)
	for i := range gpus {
		gpus[i] = fmt.Sprintf("gpu-%d-%d", p, i)
	}
	return types.Candidate{Provider: []byte{p}, OfferID: uint64(p), Price: sdkmath.NewInt(price), Reliability: r, Seq: seq, FreeGPUs: gpus}
}

func TestClearSecondAndFirstPrice(t *testing.T) {
	const standing = types.StandingOfferSeq
	cases := []struct {
		name       string
		cands      []types.Candidate
		gpus       uint32
		split      bool
		max        int64
		wantWin    []byte // providers, in order
		wantSecond int64  // price under SECOND_PRICE
		wantFirst  int64  // price under FIRST_PRICE
	}{
		{"single candidate pays its ask", []types.Candidate{cand(1, 100, 9000, 1, standing)}, 1, false, 500, []byte{1}, 100, 100},
		{
			"equal reliability: runner-up's price",
			[]types.Candidate{cand(1, 100, 9000, 1, standing), cand(2, 130, 9000, 1, standing)}, 1, false, 500,
			[]byte{1}, 130, 100,
		},
		{
			// 2's effective = 120 × 10000/8000 = 150; 1 would still win up to 150 × 9500/10000 = 142.5 → 142.
			"different reliability: runner-up's effective × winner's reliability",
			[]types.Candidate{cand(1, 100, 9500, 1, standing), cand(2, 120, 8000, 1, standing)}, 1, false, 500,
			[]byte{1}, 142, 100,
		},
		{
			// A cheaper ask with poor reliability loses: 1's effective 100/0.5 = 200 > 2's 150/1.0.
			"reliability beats a cheaper ask",
			[]types.Candidate{cand(1, 100, 5000, 1, standing), cand(2, 150, 10000, 1, standing)}, 1, false, 500,
			[]byte{2}, 200, 150,
		},
		{
			"capped at max price",
			[]types.Candidate{cand(1, 100, 9000, 1, standing), cand(2, 400, 9000, 1, standing)}, 1, false, 250,
			[]byte{1}, 250, 100,
		},
		{
			// Pool: 2 (180 at 1.0 → 180) then 1 (100 at 0.5 → 200); runner-up 3 (205 at 1.0).
			// Bounds: 2 → 205, 1 → 205 × 5000/10000 = 102; the min, 102, is below
			// 2's ask, so the price is floored at the highest ask, 180.
			"never below a winner's ask",
			[]types.Candidate{cand(1, 100, 5000, 1, standing), cand(2, 180, 10000, 1, standing), cand(3, 205, 10000, 1, standing)}, 2, true, 500,
			[]byte{2, 1}, 180, 180,
		},
		{
			"tie in score goes to the earlier bid",
			[]types.Candidate{cand(1, 100, 9000, 1, 7), cand(2, 100, 9000, 1, 3)}, 1, false, 500,
			[]byte{2}, 100, 100,
		},
		{
			"tie in score and bid order goes to the lower provider bytes",
			[]types.Candidate{cand(2, 100, 9000, 1, standing), cand(1, 100, 9000, 1, standing)}, 1, false, 500,
			[]byte{1}, 100, 100,
		},
		{
			"a candidate without enough GPUs neither wins nor sets the price",
			[]types.Candidate{cand(1, 50, 9000, 1, standing), cand(2, 100, 9000, 2, standing), cand(3, 140, 9000, 2, standing)}, 2, false, 500,
			[]byte{2}, 140, 100,
		},
		{
			"one lease per provider: its best candidate only",
			[]types.Candidate{cand(1, 100, 9000, 1, standing), cand(1, 90, 9000, 1, 1), cand(2, 120, 9000, 1, standing)}, 1, false, 500,
			[]byte{1}, 120, 90,
		},
		{
			// Pool of 1 (2 GPUs) and 2 (1 GPU); runner-up 3 at 150. Bounds: 150 for both (equal r) → 150.
			"micro-pool pays one price to all",
			[]types.Candidate{cand(1, 100, 9000, 2, standing), cand(2, 120, 9000, 1, standing), cand(3, 150, 9000, 4, standing)}, 3, true, 500,
			[]byte{1, 2}, 150, 120,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for rule, want := range map[types.ClearingRule]int64{
				types.CLEARING_RULE_SECOND_PRICE: tc.wantSecond, types.CLEARING_RULE_FIRST_PRICE: tc.wantFirst,
			} { //detlint:allow two independent checks
				out, ok := types.Clear(tc.cands, tc.gpus, tc.split, sdkmath.NewInt(tc.max), rule)
				require.True(t, ok)
				var got []byte
				for _, w := range out.Winners {
					got = append(got, w.Provider[0])
				}
				require.Equal(t, tc.wantWin, got, rule.String())
				require.Equal(t, sdkmath.NewInt(want), out.Price, rule.String())
			}
		})
	}
}

func TestClearNoFit(t *testing.T) {
	_, ok := types.Clear(nil, 1, false, sdkmath.NewInt(10), types.CLEARING_RULE_SECOND_PRICE)
	require.False(t, ok)
	// Three GPUs without split: nobody has three.
	cands := []types.Candidate{cand(1, 10, 9000, 2, 1), cand(2, 10, 9000, 2, 2)}
	_, ok = types.Clear(cands, 3, false, sdkmath.NewInt(10), types.CLEARING_RULE_SECOND_PRICE)
	require.False(t, ok)
	// With split they fill it, all-or-nothing: five is too many.
	out, ok := types.Clear(cands, 3, true, sdkmath.NewInt(10), types.CLEARING_RULE_SECOND_PRICE)
	require.True(t, ok)
	require.Len(t, out.Winners, 2)
	require.Len(t, out.Winners[1].GPUs, 1)
	_, ok = types.Clear(cands, 5, true, sdkmath.NewInt(10), types.CLEARING_RULE_SECOND_PRICE)
	require.False(t, ok)
}

func TestEscrowArithmetic(t *testing.T) {
	price := coin(1_500_001) // 1.500001 per GPU-hour
	// 2 GPUs × 5400 s: 1500001 × 10800 / 3600 = 4500003 exactly.
	require.Equal(t, coin(4_500_003), types.Deposit(price, 2, 5400))
	// 1 GPU × 1 s: 1500001 / 3600 = 416.66… → deposit 417, due 416.
	require.Equal(t, coin(417), types.Deposit(price, 1, 1))
	require.Equal(t, coin(416), types.Due(price, 1, 1))
	// Cumulative dues never drift: paying each second sums to the whole.
	paid := coin(0)
	for s := uint64(1); s <= 3600; s++ {
		paid = types.Due(price, 3, s)
	}
	require.Equal(t, coin(4_500_003), paid)
	// Allotments sum to the job's escrow: floors for all but the last.
	al := types.Allotments(coin(1), []uint32{1, 1, 1}, 1800) // 0.5 units each, 1.5 → escrow 2
	require.Equal(t, []string{"0uusdc", "0uusdc", "2uusdc"}, []string{al[0].String(), al[1].String(), al[2].String()})
	// Huge but valid inputs do not overflow: 2^128-1 × 1024 GPUs × 100 years.
	maxPrice := sdkmath.NewIntFromBigInt(big128{}.max())
	require.NotPanics(t, func() { types.Deposit(coinAmt(maxPrice), 1024, 100*365*24*3600) })
}

type big128 struct{}

func (big128) max() *big.Int {
	return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))
}

func coin(n int64) sdk.Coin          { return sdk.NewInt64Coin("uusdc", n) }
func coinAmt(a sdkmath.Int) sdk.Coin { return sdk.NewCoin("uusdc", a) }

// TestBetterIsExactAtEveryMagnitude: the score comparison agrees with
// big-integer cross-multiplication for prices near and beyond 2^64, where
// a 64-bit product would overflow.
func TestBetterIsExactAtEveryMagnitude(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	edges := []*big.Int{big.NewInt(1), big.NewInt(9999), new(big.Int).SetUint64(math.MaxUint64), new(big.Int).SetUint64(math.MaxUint64 - 1), new(big.Int).Lsh(big.NewInt(1), 64), new(big.Int).Lsh(big.NewInt(1), 100)}
	price := func() *big.Int {
		if r.Intn(2) == 0 {
			return edges[r.Intn(len(edges))]
		}
		return new(big.Int).Rand(r, new(big.Int).Lsh(big.NewInt(1), uint(1+r.Intn(70))))
	}
	for range 20_000 {
		a := types.Candidate{Provider: []byte{1}, Price: sdkmath.NewIntFromBigInt(new(big.Int).Add(price(), big.NewInt(1))), Reliability: uint32(1 + r.Intn(10000)), Seq: 1}
		b := types.Candidate{Provider: []byte{2}, Price: sdkmath.NewIntFromBigInt(new(big.Int).Add(price(), big.NewInt(1))), Reliability: uint32(1 + r.Intn(10000)), Seq: 1}
		l := new(big.Int).Mul(a.Price.BigInt(), big.NewInt(int64(b.Reliability)))
		rr := new(big.Int).Mul(b.Price.BigInt(), big.NewInt(int64(a.Reliability)))
		switch l.Cmp(rr) {
		case -1:
			require.True(t, types.Better(a, b), "%s@%d vs %s@%d", a.Price, a.Reliability, b.Price, b.Reliability)
		case 1:
			require.False(t, types.Better(a, b), "%s@%d vs %s@%d", a.Price, a.Reliability, b.Price, b.Reliability)
		default:
			require.True(t, types.Better(a, b), "equal scores: lower provider bytes")
		}
	}
}
