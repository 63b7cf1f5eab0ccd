// Package chaincfg holds the chain's names, address prefixes and denoms
// and sets them into the SDK's global config. It is light on purpose: the
// provider agent needs these without linking the whole app.
package chaincfg

import (
	"os"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Chain-wide names (docs/design.md#actors-and-tokens).
const (
	// Name is the application name, also the node's default home (~/.idlegpu).
	Name = "idlegpu"

	// Bech32Prefix is the account address prefix: idle1….
	Bech32Prefix = "idle"

	// BondDenom is the staking and fee denom: 1 GPU token = 10^6 ugpu.
	BondDenom = "ugpu"

	// USDCDenom is the stablecoin the localnet and demo add to the market's
	// payment denoms.
	USDCDenom = "uusdc"
)

// Derived bech32 prefixes for validator operators and consensus keys.
const (
	Bech32PrefixValAddr  = Bech32Prefix + sdk.PrefixValidator + sdk.PrefixOperator
	Bech32PrefixValPub   = Bech32PrefixValAddr + sdk.PrefixPublic
	Bech32PrefixConsAddr = Bech32Prefix + sdk.PrefixValidator + sdk.PrefixConsensus
	Bech32PrefixConsPub  = Bech32PrefixConsAddr + sdk.PrefixPublic
	Bech32PrefixAccPub   = Bech32Prefix + sdk.PrefixPublic
)

// init sets the SDK's process-wide address prefixes and bond denom before any
// address or default genesis is built; modules read them when they construct
// defaults (a wrong prefix panics at start-up with "invalid bank authority").
func init() {
	SetSDKConfig()
}

// SetSDKConfig writes the chain's prefixes and bond denom into the SDK's
// global config. It is idempotent, and seals the config so nothing later can
// change it under a running node.
func SetSDKConfig() {
	// Without a scope, every sdk.GetConfig() (one per address decoded: bank
	// sends, bech32 codecs) calls os.Executable and os.Hostname to find its
	// per-process config; that was 8% of a clearing block. One process runs
	// one chain, so a fixed scope is the same config at no syscall cost.
	if os.Getenv(sdk.EnvConfigScope) == "" {
		if err := os.Setenv(sdk.EnvConfigScope, "idlegpu"); err != nil {
			panic(err)
		}
	}
	cfg := sdk.GetConfig()
	if cfg.GetBech32AccountAddrPrefix() != Bech32Prefix {
		cfg.SetBech32PrefixForAccount(Bech32Prefix, Bech32PrefixAccPub)
		cfg.SetBech32PrefixForValidator(Bech32PrefixValAddr, Bech32PrefixValPub)
		cfg.SetBech32PrefixForConsensusNode(Bech32PrefixConsAddr, Bech32PrefixConsPub)
		cfg.Seal()
	}
	sdk.DefaultBondDenom = BondDenom
}
