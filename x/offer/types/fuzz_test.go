package types_test

import (
	"testing"

	"github.com/idlegpu/idlegpu/x/internal/paramstest"
	"github.com/idlegpu/idlegpu/x/offer/types"
)

// FuzzGenesisDecodeValidate: arbitrary bytes through genesis decoding and
// validation never panic (seeds: out-of-range and malformed params).
func FuzzGenesisDecodeValidate(f *testing.F) {
	paramstest.FuzzGenesis(f, types.DefaultGenesis(),
		`{"params":{"payment_denoms":["ugpu","ugpu"],"max_windows":4294967295}}`,
	)
}
