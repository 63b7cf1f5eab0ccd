package app

import "github.com/idlegpu/idlegpu/app/chaincfg"

// The chain's names, prefixes and denoms live in app/chaincfg, which the
// agent imports without the app; these aliases keep app.X working.
const (
	Name                 = chaincfg.Name
	Bech32Prefix         = chaincfg.Bech32Prefix
	BondDenom            = chaincfg.BondDenom
	USDCDenom            = chaincfg.USDCDenom
	Bech32PrefixValAddr  = chaincfg.Bech32PrefixValAddr
	Bech32PrefixValPub   = chaincfg.Bech32PrefixValPub
	Bech32PrefixConsAddr = chaincfg.Bech32PrefixConsAddr
	Bech32PrefixConsPub  = chaincfg.Bech32PrefixConsPub
	Bech32PrefixAccPub   = chaincfg.Bech32PrefixAccPub
)

// SetSDKConfig writes the chain's prefixes and bond denom into the SDK's
// global config (chaincfg.SetSDKConfig; its init already ran).
func SetSDKConfig() { chaincfg.SetSDKConfig() }
