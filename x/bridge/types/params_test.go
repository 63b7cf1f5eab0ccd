package types_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// TestVaultAndDutyParams: the vault is named by a positive EVM chain id and
// a 0x address (zero until one is deployed); duty checks per block must
// keep up with what a block can queue, so governance cannot set a bound
// under which missed duties are recorded ever later.
func TestVaultAndDutyParams(t *testing.T) {
	for _, c := range []struct {
		name   string
		edit   func(*types.Params)
		expErr string
	}{
		{"default: a development chain, no vault yet", func(*types.Params) {}, ""},
		{"a deployed vault", func(p *types.Params) {
			p.EvmChainId, p.VaultAddress = 84532, "0x5FbDB2315678afecb367f032d93F642f64180aa3"
		}, ""},
		{"no chain", func(p *types.Params) { p.EvmChainId = 0 }, "evm_chain_id must be positive: invalid params"},
		{"no address", func(p *types.Params) { p.VaultAddress = "" },
			`vault_address: "" is not a 0x-prefixed 20-byte address: invalid params`},
		{"a short address", func(p *types.Params) { p.VaultAddress = "0x5FbDB2315678afecb367f032d93F642f64180a" },
			`vault_address: "0x5FbDB2315678afecb367f032d93F642f64180a" is not a 0x-prefixed 20-byte address: invalid params`},
		{"checks exactly keep up", func(p *types.Params) { p.MaxCreditsPerBlock, p.MaxDutyChecksPerBlock = 10, 12 }, ""},
		{"checks fall behind by one a block", func(p *types.Params) { p.MaxCreditsPerBlock, p.MaxDutyChecksPerBlock = 10, 11 },
			"max_duty_checks_per_block must be at least max_credits_per_block + 2 (12), got 11: invalid params"},
		{"more credits without more checks", func(p *types.Params) { p.MaxCreditsPerBlock = types.DefaultMaxCreditsPerBlock + 1 },
			"max_duty_checks_per_block must be at least max_credits_per_block + 2 (103), got 102: invalid params"},
		{"the largest credit bound", func(p *types.Params) { p.MaxCreditsPerBlock = ^uint32(0) },
			"max_duty_checks_per_block must be at least max_credits_per_block + 2 (4294967297), got 102: invalid params"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := types.DefaultParams()
			c.edit(&p)
			err := p.Validate()
			if c.expErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, c.expErr)
		})
	}
}
