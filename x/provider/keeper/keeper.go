package keeper

import (
	"fmt"

	"cosmossdk.io/collections"
	"cosmossdk.io/core/address"
	"cosmossdk.io/core/store"

	"github.com/cosmos/cosmos-sdk/codec"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// Keeper owns the x/provider state.
type Keeper struct {
	cdc          codec.BinaryCodec
	addressCodec address.Codec

	// authority may change the params (the gov module account by default).
	authority string

	// Schema is the module's collections schema.
	Schema collections.Schema
	// Params are the module parameters.
	Params collections.Item[types.Params]
}

// NewKeeper returns the x/provider keeper. It panics on an invalid authority
// because that is a wiring bug, caught when the app starts.
func NewKeeper(cdc codec.BinaryCodec, storeService store.KVStoreService, addressCodec address.Codec, authority string) Keeper {
	if _, err := addressCodec.StringToBytes(authority); err != nil {
		panic(fmt.Errorf("invalid %s authority address %q: %w", types.ModuleName, authority, err))
	}

	sb := collections.NewSchemaBuilder(storeService)
	k := Keeper{
		cdc:          cdc,
		addressCodec: addressCodec,
		authority:    authority,
		Params:       collections.NewItem(sb, types.ParamsKey, "params", codec.CollValue[types.Params](cdc)),
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
