package chaincfg

import (
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
)

// DenomMetadata describes the chain's currencies so wallets and the CLI show
// and read human units (1 gpu = 10^6 ugpu, 1 usdc = 10^6 uusdc). It is the
// bank genesis `idlegpud init` writes, and nothing on chain changes it (x/bank
// has no message that sets metadata), so a client that cannot ask a node
// (a flag read before any node is known, a tx built --offline) reads the
// same units from here.
func DenomMetadata() []banktypes.Metadata {
	return []banktypes.Metadata{
		denomMetadata(BondDenom, "gpu", "GPU", "idlegpu staking and fee token"),
		denomMetadata(USDCDenom, "usdc", "USDC", "USD Coin, a market payment currency"),
	}
}

func denomMetadata(base, display, symbol, description string) banktypes.Metadata {
	return banktypes.Metadata{
		Description: description,
		DenomUnits: []*banktypes.DenomUnit{
			{Denom: base, Exponent: 0, Aliases: []string{}},
			{Denom: display, Exponent: 6, Aliases: []string{}},
		},
		Base:    base,
		Display: display,
		Name:    symbol,
		Symbol:  symbol,
	}
}
