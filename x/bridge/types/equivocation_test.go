package types_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// TestEquivocationParamsAndGenesis: equivocation_slash_bps is a share in
// 1..10000; genesis lists every EVM key once and every punished
// equivocation once, of a known kind.
func TestEquivocationParamsAndGenesis(t *testing.T) {
	val := sdk.ValAddress(bytes.Repeat([]byte{1}, 20)).String()
	const evm = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
	key := types.SignerKey{EvmAddress: evm, Validator: val}
	eq := func(kind uint32, id uint64) types.Equivocation {
		return types.Equivocation{Validator: val, Kind: kind, Id: id}
	}
	for _, c := range []struct {
		name   string
		setup  func(*types.GenesisState)
		expErr string
	}{
		{"default", func(*types.GenesisState) {}, ""},
		{"slash all", func(gs *types.GenesisState) { gs.Params.EquivocationSlashBps = 10_000 }, ""},
		{"slash nothing", func(gs *types.GenesisState) { gs.Params.EquivocationSlashBps = 0 },
			"equivocation_slash_bps must be in 1..10000, got 0: invalid params"},
		{"slash more than all", func(gs *types.GenesisState) { gs.Params.EquivocationSlashBps = 10_001 },
			"equivocation_slash_bps must be in 1..10000, got 10001: invalid params"},
		{"records", func(gs *types.GenesisState) {
			gs.SignerKeys = []types.SignerKey{key}
			gs.Equivocations = []types.Equivocation{eq(types.EquivocationDeposit, 1), eq(types.EquivocationRoot, 1)}
		}, ""},
		{"a key twice", func(gs *types.GenesisState) { gs.SignerKeys = []types.SignerKey{key, key} },
			"signer key " + evm + " listed twice: invalid genesis state"},
		{"a bad key", func(gs *types.GenesisState) { gs.SignerKeys = []types.SignerKey{{EvmAddress: "0x12", Validator: val}} },
			`signer key of ` + val + `: "0x12": want 0x and 40 hex digits: invalid EVM address: invalid genesis state`},
		{"an offence twice", func(gs *types.GenesisState) {
			gs.Equivocations = []types.Equivocation{eq(types.EquivocationRoot, 3), eq(types.EquivocationRoot, 3)}
		}, "equivocation of " + val + " (kind 2, id 3) listed twice: invalid genesis state"},
		{"an unknown kind", func(gs *types.GenesisState) { gs.Equivocations = []types.Equivocation{eq(9, 1)} },
			"equivocation of " + val + ": unknown kind 9: invalid genesis state"},
	} {
		t.Run(c.name, func(t *testing.T) {
			gs := types.DefaultGenesis()
			c.setup(gs)
			err := gs.Validate()
			if c.expErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, c.expErr)
		})
	}
}
