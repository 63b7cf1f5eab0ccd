package types

import "cosmossdk.io/core/address"

// AccountKeeper is the part of x/auth the module uses.
type AccountKeeper interface {
	// AddressCodec encodes and decodes the chain's bech32 account addresses.
	AddressCodec() address.Codec
}
