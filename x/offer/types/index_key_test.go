package types_test

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"cosmossdk.io/collections/colltest"
	"cosmossdk.io/math"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

func key(lane types.Lane, model, denom string, price int64, id uint64) types.IndexKey {
	return types.IndexKey{Lane: lane, Model: model, Denom: denom, Price: math.NewInt(price), OfferID: id}
}

func keyIn(continent string, k types.IndexKey) types.IndexKey {
	k.Continent = continent
	return k
}

func encode(t *testing.T, k types.IndexKey) []byte {
	t.Helper()
	buf := make([]byte, types.IndexKeyCodec.Size(k))
	n, err := types.IndexKeyCodec.Encode(buf, k)
	require.NoError(t, err)
	require.Equal(t, len(buf), n)
	return buf
}

// TestIndexKeyCodecConformance runs collections' own codec conformance checks.
func TestIndexKeyCodecConformance(t *testing.T) {
	colltest.TestKeyCodec(t, types.IndexKeyCodec, key(types.LANE_PREEMPTIBLE, "NVIDIA H100 80GB HBM3", "uusdc", 1_500_000, 42))
	colltest.TestKeyCodec(t, types.IndexKeyCodec, key(types.LANE_ON_DEMAND, "", "ugpu", 0, 0))
	colltest.TestKeyCodec(t, types.IndexKeyCodec, keyIn("eu", key(types.LANE_RESERVED, "A100", "uusdc", 7, 3)))
}

// TestIndexKeyByteOrderIsPriceOrder: byte order of encodings equals the
// walk's order (price, then id) across magnitudes of different lengths.
func TestIndexKeyByteOrderIsPriceOrder(t *testing.T) {
	huge := math.NewIntFromBigInt(new(big.Int).Lsh(big.NewInt(1), 200))
	ordered := []types.IndexKey{
		key(types.LANE_ON_DEMAND, "A100", "uusdc", 0, 9),
		key(types.LANE_ON_DEMAND, "A100", "uusdc", 1, 1),
		key(types.LANE_ON_DEMAND, "A100", "uusdc", 255, 1),
		key(types.LANE_ON_DEMAND, "A100", "uusdc", 256, 0),
		key(types.LANE_ON_DEMAND, "A100", "uusdc", 256, 1),
		key(types.LANE_ON_DEMAND, "A100", "uusdc", 1_000_000, 7),
		{Lane: types.LANE_ON_DEMAND, Model: "A100", Denom: "uusdc", Price: huge, OfferID: 1},
		key(types.LANE_ON_DEMAND, "A100", "uusdc0", 1, 1),             // a longer denom sorts after, never inside
		keyIn("as", key(types.LANE_ON_DEMAND, "A100", "uusdc", 0, 0)), // every-region keys, then each continent's
		keyIn("eu", key(types.LANE_ON_DEMAND, "A100", "uusdc", 0, 0)),
		keyIn("eu", key(types.LANE_ON_DEMAND, "A100", "uusdc", 9, 0)),
		keyIn("eu", key(types.LANE_ON_DEMAND, "A100", "uusdc0", 0, 0)),
		key(types.LANE_ON_DEMAND, "A1000", "uusdc", 1, 1), // a longer model sorts after all of them
		key(types.LANE_PREEMPTIBLE, "A100", "uusdc", 0, 0),
	}
	for i := 1; i < len(ordered); i++ {
		require.Negative(t, bytes.Compare(encode(t, ordered[i-1]), encode(t, ordered[i])), "%d before %d", i-1, i)
	}
}

func TestIndexKeyCodecRejects(t *testing.T) {
	for name, k := range map[string]types.IndexKey{
		"negative price": key(types.LANE_ON_DEMAND, "m", "d", -1, 1),
		"nil price":      {Lane: types.LANE_ON_DEMAND, Model: "m", Denom: "d", OfferID: 1},
		"NUL in model":   key(types.LANE_ON_DEMAND, "a\x00b", "d", 1, 1),
		"NUL in region":  keyIn("e\x00u", key(types.LANE_ON_DEMAND, "m", "d", 1, 1)),
		"lane too big":   key(256, "m", "d", 1, 1),
	} { //detlint:allow independent cases
		_, err := types.IndexKeyCodec.Encode(make([]byte, 128), k)
		require.Error(t, err, name)
	}
	for name, b := range map[string][]byte{
		"empty":           {},
		"no terminator":   {1, 'm'},
		"no denom":        {1, 'm', 0, 'e', 'u', 0},
		"no price length": {1, 'm', 0, 0, 'd', 0},
		"price truncated": {1, 'm', 0, 0, 'd', 0, 2, 1},
		"id truncated":    {1, 'm', 0, 0, 'd', 0, 1, 1, 0, 0, 0},
		"leading zero":    append([]byte{1, 'm', 0, 0, 'd', 0, 2, 0, 1}, make([]byte, 8)...),
		"price too long":  append([]byte{1, 'm', 0, 0, 'd', 0, 33}, make([]byte, 41)...),
	} { //detlint:allow independent cases
		_, _, err := types.IndexKeyCodec.Decode(b)
		require.Error(t, err, name)
	}
}

// FuzzIndexKeyCodec: any bytes that decode re-encode to exactly the bytes
// read (one encoding per key), and decoding never panics.
func FuzzIndexKeyCodec(f *testing.F) {
	f.Add(encodeSeed(key(types.LANE_ON_DEMAND, "NVIDIA H100 80GB HBM3", "uusdc", 2_000_000, 1)))
	f.Add([]byte{2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{4, 'x', 0, 'y', 0, 32})
	f.Fuzz(func(t *testing.T, b []byte) {
		n, k, err := types.IndexKeyCodec.Decode(b)
		if err != nil {
			return
		}
		if bytes.IndexByte([]byte(k.Model), 0) >= 0 || bytes.IndexByte([]byte(k.Denom), 0) >= 0 {
			t.Fatalf("decoded a NUL inside a string")
		}
		re := make([]byte, types.IndexKeyCodec.Size(k))
		m, err := types.IndexKeyCodec.Encode(re, k)
		require.NoError(t, err)
		require.Equal(t, b[:n], re[:m])
	})
}

func encodeSeed(k types.IndexKey) []byte {
	buf := make([]byte, types.IndexKeyCodec.Size(k))
	if _, err := types.IndexKeyCodec.Encode(buf, k); err != nil {
		panic(err)
	}
	return buf
}
