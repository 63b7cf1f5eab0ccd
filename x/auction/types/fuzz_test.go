package types_test

import (
	"testing"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/paramstest"
)

// FuzzGenesisDecodeValidate: arbitrary bytes through genesis decoding and
// validation never panic (seeds: out-of-range and malformed params).
func FuzzGenesisDecodeValidate(f *testing.F) {
	paramstest.FuzzGenesis(f, types.DefaultGenesis(),
		`{"params":{"clearing_rule":"CLEARING_RULE_FIRST_PRICE","max_job_duration_seconds":"-1"}}`,
		`{"params":{"clearing_rule":7,"tier_min_reliability":{"gold_bps":99999}}}`,
	)
}
