package keeper

import (
	"fmt"

	"cosmossdk.io/collections"
	"cosmossdk.io/core/address"
	"cosmossdk.io/core/store"

	"github.com/cosmos/cosmos-sdk/codec"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

// Keeper owns the x/offer state: offers, the market index the auction walks,
// which GPU sits in which offer, and each provider's fill-rate figures.
type Keeper struct {
	cdc          codec.BinaryCodec
	addressCodec address.Codec
	providers    types.ProviderKeeper
	// holds is set once at wiring (x/settlement's audits).
	holds *gpuHolds
	// denoms is set once at wiring (x/settlement's step payments).
	denoms *denomsGuard

	// authority may change the params (the gov module account by default).
	authority string

	// Schema is the module's collections schema.
	Schema collections.Schema
	// Params are the module parameters.
	Params collections.Item[types.Params]
	// Offers maps offer id → offer.
	Offers collections.Map[uint64, types.Offer]
	// OfferSeq gives offer ids, from 1.
	OfferSeq collections.Sequence
	// ProviderOffers is the set of (provider, offer id).
	ProviderOffers collections.KeySet[collections.Pair[sdk.AccAddress, uint64]]
	// GPUOffers maps GPU UUID → offer id; the key makes a GPU sit in one offer.
	GPUOffers collections.Map[string, uint64]
	// MarketIndex holds (lane, model, denom, price, id) for every lane of every OPEN offer.
	MarketIndex collections.KeySet[types.IndexKey]
	// AnyModelIndex holds the same keys with the model left out, for jobs that take any model.
	AnyModelIndex collections.KeySet[types.IndexKey]
	// Stats maps provider → its offer counts and GPU-seconds.
	Stats collections.Map[sdk.AccAddress, types.ProviderStats]
}

// NewKeeper returns the x/offer keeper. It panics on an invalid authority
// because that is a wiring bug, caught when the app starts.
func NewKeeper(cdc codec.BinaryCodec, storeService store.KVStoreService, addressCodec address.Codec, providers types.ProviderKeeper, authority string) Keeper {
	if _, err := addressCodec.StringToBytes(authority); err != nil {
		panic(fmt.Errorf("invalid %s authority address %q: %w", types.ModuleName, authority, err))
	}

	sb := collections.NewSchemaBuilder(storeService)
	k := Keeper{
		cdc:          cdc,
		addressCodec: addressCodec,
		providers:    providers,
		holds:        &gpuHolds{},
		denoms:       &denomsGuard{},
		authority:    authority,
		Params:       collections.NewItem(sb, types.ParamsKey, "params", codec.CollValue[types.Params](cdc)),
		Offers:       collections.NewMap(sb, types.OffersKey, "offers", collections.Uint64Key, codec.CollValue[types.Offer](cdc)),
		OfferSeq:     collections.NewSequence(sb, types.OfferSeqKey, "offer_seq"),
		ProviderOffers: collections.NewKeySet(sb, types.ProviderOffersKey, "provider_offers",
			collections.PairKeyCodec(sdk.AccAddressKey, collections.Uint64Key)),
		GPUOffers:     collections.NewMap(sb, types.GPUOffersKey, "gpu_offers", collections.StringKey, collections.Uint64Value),
		MarketIndex:   collections.NewKeySet(sb, types.MarketIndexKey, "market_index", types.IndexKeyCodec),
		AnyModelIndex: collections.NewKeySet(sb, types.AnyModelIndexKey, "any_model_index", types.IndexKeyCodec),
		Stats:         collections.NewMap(sb, types.ProviderStatsKey, "provider_stats", sdk.AccAddressKey, codec.CollValue[types.ProviderStats](cdc)),
	}

	schema, err := sb.Build()
	if err != nil {
		panic(err)
	}
	k.Schema = schema
	return k
}

// Authority returns the address allowed to change the module's params.
func (k Keeper) Authority() string { return k.authority }
