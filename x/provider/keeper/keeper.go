package keeper

import (
	"fmt"
	"time"

	"cosmossdk.io/collections"
	"cosmossdk.io/core/address"
	"cosmossdk.io/core/store"

	"github.com/cosmos/cosmos-sdk/codec"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// Keeper owns the x/provider state: providers, their GPUs, stake,
// unbonding queue and reputation.
type Keeper struct {
	cdc          codec.BinaryCodec
	addressCodec address.Codec
	bank         types.BankKeeper

	// authority may change the params (the gov module account by default).
	authority string

	// Schema is the module's collections schema.
	Schema collections.Schema
	// Params are the module parameters.
	Params collections.Item[types.Params]
	// Providers maps operator → provider.
	Providers collections.Map[sdk.AccAddress, types.Provider]
	// GPUsByUUID maps UUID → GPU; the key makes a UUID belong to one provider.
	GPUsByUUID collections.Map[string, types.GPU]
	// ProviderGPUs is the set of (operator, UUID), a provider's GPUs in order.
	ProviderGPUs collections.KeySet[collections.Pair[sdk.AccAddress, string]]
	// Reputations maps operator → reputation.
	Reputations collections.Map[sdk.AccAddress, types.Reputation]
	// Unbondings maps id → entry.
	Unbondings collections.Map[uint64, types.UnbondingEntry]
	// UnbondingQueue is the set of (completes_at, id) EndBlock walks.
	UnbondingQueue collections.KeySet[collections.Pair[time.Time, uint64]]
	// ProviderUnbondings is the set of (operator, id) a slash reaches.
	ProviderUnbondings collections.KeySet[collections.Pair[sdk.AccAddress, uint64]]
	// UnbondingSeq gives unbonding ids.
	UnbondingSeq collections.Sequence
	// GPUHistories maps UUID → the record of a deregistered GPU.
	GPUHistories collections.Map[string, types.GPUHistory]

	// gpuModels is shared by every copy of the keeper, so SetGPUModels
	// after the app is wired reaches the copies other modules hold.
	gpuModels *gpuModelTable
}

// NewKeeper returns the x/provider keeper. It panics on an invalid authority
// because that is a wiring bug, caught when the app starts.
func NewKeeper(cdc codec.BinaryCodec, storeService store.KVStoreService, addressCodec address.Codec, bank types.BankKeeper, authority string) Keeper {
	if _, err := addressCodec.StringToBytes(authority); err != nil {
		panic(fmt.Errorf("invalid %s authority address %q: %w", types.ModuleName, authority, err))
	}

	sb := collections.NewSchemaBuilder(storeService)
	k := Keeper{
		cdc:          cdc,
		addressCodec: addressCodec,
		bank:         bank,
		authority:    authority,
		Params:       collections.NewItem(sb, types.ParamsKey, "params", codec.CollValue[types.Params](cdc)),
		Providers:    collections.NewMap(sb, types.ProvidersKey, "providers", sdk.AccAddressKey, codec.CollValue[types.Provider](cdc)),
		GPUsByUUID:   collections.NewMap(sb, types.GPUsKey, "gpus", collections.StringKey, codec.CollValue[types.GPU](cdc)),
		ProviderGPUs: collections.NewKeySet(sb, types.ProviderGPUsKey, "provider_gpus",
			collections.PairKeyCodec(sdk.AccAddressKey, collections.StringKey)),
		Reputations: collections.NewMap(sb, types.ReputationsKey, "reputations", sdk.AccAddressKey, codec.CollValue[types.Reputation](cdc)),
		Unbondings:  collections.NewMap(sb, types.UnbondingsKey, "unbondings", collections.Uint64Key, codec.CollValue[types.UnbondingEntry](cdc)),
		UnbondingQueue: collections.NewKeySet(sb, types.UnbondingQueueKey, "unbonding_queue",
			collections.PairKeyCodec(sdk.TimeKey, collections.Uint64Key)),
		ProviderUnbondings: collections.NewKeySet(sb, types.ProviderUnbondingsKey, "provider_unbondings",
			collections.PairKeyCodec(sdk.AccAddressKey, collections.Uint64Key)),
		UnbondingSeq: collections.NewSequence(sb, types.UnbondingSeqKey, "unbonding_seq"),
		GPUHistories: collections.NewMap(sb, types.GPUHistoriesKey, "gpu_histories", collections.StringKey, codec.CollValue[types.GPUHistory](cdc)),
		gpuModels:    &gpuModelTable{},
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
