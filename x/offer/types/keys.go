package types

import "cosmossdk.io/collections"

const (
	// ModuleName is the module's name and store key.
	ModuleName = "offer"

	// StoreKey is the KV store key of the module.
	StoreKey = ModuleName
)

// Store prefixes. Never reuse or renumber one: the bytes are in every node's
// database.
var (
	// ParamsKey holds the module Params (Item).
	ParamsKey = collections.NewPrefix(0)
	// OffersKey maps offer id → Offer.
	OffersKey = collections.NewPrefix(1)
	// OfferSeqKey is the next offer id (Sequence).
	OfferSeqKey = collections.NewPrefix(2)
	// ProviderOffersKey is the set of (provider, offer id).
	ProviderOffersKey = collections.NewPrefix(3)
	// GPUOffersKey maps GPU UUID → the offer holding it: a GPU is in at most one offer.
	GPUOffersKey = collections.NewPrefix(4)
	// MarketIndexKey is the set of (lane, model, denom, price, offer id) of OPEN offers.
	MarketIndexKey = collections.NewPrefix(5)
	// AnyModelIndexKey is the set of (lane, "", denom, price, offer id) of OPEN
	// offers, walked when a job accepts any model.
	AnyModelIndexKey = collections.NewPrefix(6)
	// ProviderStatsKey maps provider → ProviderStats.
	ProviderStatsKey = collections.NewPrefix(7)
)
