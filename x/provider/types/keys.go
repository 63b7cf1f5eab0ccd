package types

import "cosmossdk.io/collections"

const (
	// ModuleName is the module's name, store key and module account name
	// (the account holds bonded and unbonding stake).
	ModuleName = "provider"

	// StoreKey is the KV store key of the module.
	StoreKey = ModuleName
)

// Store prefixes. Never reuse or renumber one: the bytes are in every node's
// database.
var (
	// ParamsKey holds the module Params (Item).
	ParamsKey = collections.NewPrefix(0)
	// ProvidersKey maps operator address → Provider.
	ProvidersKey = collections.NewPrefix(1)
	// GPUsKey maps GPU UUID → GPU: a UUID belongs to at most one provider.
	GPUsKey = collections.NewPrefix(2)
	// ProviderGPUsKey is the set of (operator, UUID): a provider's GPUs in UUID order.
	ProviderGPUsKey = collections.NewPrefix(3)
	// ReputationsKey maps operator address → Reputation.
	ReputationsKey = collections.NewPrefix(4)
	// UnbondingsKey maps unbonding id → UnbondingEntry.
	UnbondingsKey = collections.NewPrefix(5)
	// UnbondingQueueKey is the set of (completes_at, id): EndBlock walks it in time order.
	UnbondingQueueKey = collections.NewPrefix(6)
	// ProviderUnbondingsKey is the set of (operator, id): what a slash must reach.
	ProviderUnbondingsKey = collections.NewPrefix(7)
	// UnbondingSeqKey is the next unbonding id (Sequence).
	UnbondingSeqKey = collections.NewPrefix(8)
	// GPUHistoriesKey maps GPU UUID → GPUHistory: the provider a deregistered
	// GPU left and its reliability then. One entry per GPU deregistered and
	// not registered again, removed when it is.
	GPUHistoriesKey = collections.NewPrefix(9)
)
