package types_test

import (
	"testing"

	"github.com/idlegpu/idlegpu/x/internal/paramstest"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// FuzzGenesisDecodeValidate: arbitrary bytes through genesis decoding and
// validation never panic (seeds: out-of-range and malformed params).
func FuzzGenesisDecodeValidate(f *testing.F) {
	paramstest.FuzzGenesis(f, types.DefaultGenesis(),
		`{"params":{"take_rate_bps":10000,"gpu_models":[{"model":"","max_w":1}]}}`,
		`{"params":{"epoch_seconds":"18446744073709551615","sample_interval_seconds":"99999999999"}}`,
	)
}
