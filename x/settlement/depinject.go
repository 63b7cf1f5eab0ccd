package settlement

import (
	"cosmossdk.io/core/address"
	"cosmossdk.io/core/appmodule"
	"cosmossdk.io/core/store"
	"cosmossdk.io/depinject"
	"cosmossdk.io/depinject/appconfig"

	"github.com/cosmos/cosmos-sdk/codec"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	govtypes "github.com/cosmos/cosmos-sdk/x/gov/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/settlement/keeper"
	"github.com/idlegpu/idlegpu/x/settlement/types"
	modulev1 "github.com/idlegpu/idlegpu/x/settlement/types/module"
)

func init() {
	appconfig.RegisterModule(&modulev1.Module{}, appconfig.Provide(ProvideModule, ProvideLeasePayee), appconfig.Invoke(InvokeSetAuctionHooks, InvokeSetOfferHolds))
}

// ModuleInputs are what the app container gives the module.
type ModuleInputs struct {
	depinject.In

	Config       *modulev1.Module
	Codec        codec.Codec
	StoreService store.KVStoreService
	AddressCodec address.Codec
	// BankKeeper pays rewards and fees; AuctionKeeper and ProviderKeeper
	// are the market modules settlement drives, through narrow interfaces.
	BankKeeper     types.BankKeeper
	AuctionKeeper  types.AuctionKeeper
	ProviderKeeper types.ProviderKeeper
	OfferKeeper    types.OfferKeeper
}

// ModuleOutputs are what the module gives the app container.
type ModuleOutputs struct {
	depinject.Out

	Keeper keeper.Keeper
	Module appmodule.AppModule
}

// ProvideModule builds the keeper and module from the app config.
func ProvideModule(in ModuleInputs) ModuleOutputs {
	authority := authtypes.NewModuleAddress(govtypes.ModuleName)
	if in.Config.Authority != "" {
		authority = authtypes.NewModuleAddressOrBech32Address(in.Config.Authority)
	}
	authorityAddr, err := in.AddressCodec.BytesToString(authority)
	if err != nil {
		panic(err)
	}

	k := keeper.NewKeeper(in.Codec, in.StoreService, in.AddressCodec, in.BankKeeper, in.AuctionKeeper, in.ProviderKeeper, in.OfferKeeper,
		authtypes.FeeCollectorName, authorityAddr)
	return ModuleOutputs{Keeper: k, Module: NewAppModule(k, in.ProviderKeeper, in.OfferKeeper)}
}

// ProvideLeasePayee makes this module's account the one x/auction pays
// leases' proven time to: settlement credits each provider from it and
// takes the protocol fee.
func ProvideLeasePayee() auctiontypes.LeasePayee {
	return auctiontypes.LeasePayee{Module: types.ModuleName}
}

// InvokeSetAuctionHooks gives x/auction settlement's lease hooks: a lease's
// epoch clock starts with the lease and stops when it ends.
func InvokeSetAuctionHooks(auction types.AuctionHooksSetter, k keeper.Keeper) {
	auction.SetHooks(k.Hooks())
}

// InvokeSetOfferHolds gives x/offer settlement's audit holds (a GPU under
// audit cannot enter a new offer before its verdict) and its check of new
// payment denoms (each must have a reliability step payment).
func InvokeSetOfferHolds(offers types.OfferHoldsSetter, k keeper.Keeper) {
	offers.SetGPUHolds(k)
	offers.SetPaymentDenomsGuard(k)
}
