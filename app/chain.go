package app

import "github.com/idlegpu/idlegpu/x/base/chaincfg"

// The chain's names, prefixes and denoms live in app/chaincfg (one name
// each: chaincfg.BondDenom, chaincfg.USDCDenom, …), which the agent imports
// without the app.

// SetSDKConfig writes the chain's prefixes and bond denom into the SDK's
// global config (chaincfg.SetSDKConfig; its init already ran).
func SetSDKConfig() { chaincfg.SetSDKConfig() }
