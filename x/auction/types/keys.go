package types

import "cosmossdk.io/collections"

const (
	// ModuleName is the module's name and store key.
	ModuleName = "auction"

	// StoreKey is the KV store key of the module.
	StoreKey = ModuleName
)

// Store prefixes. Never reuse or renumber one: the bytes are in every node's
// database. Later state (jobs, bids, leases, the clearing queue) takes the next free numbers.
var (
	// ParamsKey holds the module Params (Item).
	ParamsKey = collections.NewPrefix(0)
)
