package types_test

import (
	"testing"

	"github.com/idlegpu/idlegpu/x/internal/paramstest"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// FuzzGenesisDecodeValidate: arbitrary bytes through genesis decoding and
// validation never panic (seeds: out-of-range and malformed params).
func FuzzGenesisDecodeValidate(f *testing.F) {
	paramstest.FuzzGenesis(f, types.DefaultGenesis(),
		`{"params":{"slash_fraud_bps":4294967296,"unbonding_period_seconds":"-5"}}`,
		`{"params":{"min_stake_per_gpu":{"denom":"ugpu","amount":"-1"}}}`,
	)
}
