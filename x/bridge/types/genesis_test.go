package types_test

import (
	"bytes"
	"testing"

	"cosmossdk.io/math"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// TestGenesisUnbackedHolders: the unbacked supply is declared holder by
// holder, each once with a positive amount, summing to totals.unbacked.
func TestGenesisUnbackedHolders(t *testing.T) {
	alice := sdk.AccAddress(bytes.Repeat([]byte{1}, 20)).String()
	bob := sdk.AccAddress(bytes.Repeat([]byte{2}, 20)).String()
	holder := func(addr string, amount int64) types.UnbackedHolder {
		return types.UnbackedHolder{Address: addr, Amount: math.NewInt(amount)}
	}
	for _, c := range []struct {
		name     string
		unbacked int64
		holders  []types.UnbackedHolder
		expErr   string
	}{
		{"none on a bridged genesis", 0, nil, ""},
		{"two holders summing to the total", 30, []types.UnbackedHolder{holder(alice, 10), holder(bob, 20)}, ""},
		{"undeclared unbacked supply", 30, nil,
			"unbacked holders sum to 0, totals.unbacked is 30: invalid genesis state"},
		{"holders short of the total", 30, []types.UnbackedHolder{holder(alice, 10), holder(bob, 19)},
			"unbacked holders sum to 29, totals.unbacked is 30: invalid genesis state"},
		{"holders above the total", 30, []types.UnbackedHolder{holder(alice, 31)},
			"unbacked holders sum to 31, totals.unbacked is 30: invalid genesis state"},
		{"a holder twice", 30, []types.UnbackedHolder{holder(alice, 10), holder(alice, 20)},
			"unbacked holder " + alice + " declared twice: invalid genesis state"},
		{"a zero holding", 30, []types.UnbackedHolder{holder(alice, 30), holder(bob, 0)},
			"unbacked amount of " + bob + " must be positive: invalid genesis state"},
		{"a negative holding", 30, []types.UnbackedHolder{holder(alice, 40), holder(bob, -10)},
			"unbacked amount of " + bob + " must be positive: invalid genesis state"},
		{"a bad address", 30, []types.UnbackedHolder{holder("alice", 30)},
			`unbacked holder "alice": decoding bech32 failed: invalid bech32 string length 5: invalid genesis state`},
	} {
		t.Run(c.name, func(t *testing.T) {
			gs := types.DefaultGenesis()
			gs.Totals.Unbacked = math.NewInt(c.unbacked)
			gs.UnbackedHolders = c.holders
			err := gs.Validate()
			if c.expErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, types.ErrInvalidGenesis)
			require.EqualError(t, err, c.expErr)
		})
	}
}
