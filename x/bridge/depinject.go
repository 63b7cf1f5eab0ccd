package bridge

import (
	"cosmossdk.io/core/address"
	"cosmossdk.io/core/appmodule"
	"cosmossdk.io/core/store"
	"cosmossdk.io/depinject"
	"cosmossdk.io/depinject/appconfig"

	"github.com/cosmos/cosmos-sdk/codec"
	"github.com/cosmos/cosmos-sdk/runtime"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	govtypes "github.com/cosmos/cosmos-sdk/x/gov/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/bridge/keeper"
	"github.com/idlegpu/idlegpu/x/bridge/types"
	modulev1 "github.com/idlegpu/idlegpu/x/bridge/types/module"
)

func init() {
	appconfig.RegisterModule(&modulev1.Module{}, appconfig.Provide(ProvideModule), appconfig.Invoke(InvokeSetAuctionWithdrawer))
}

// ModuleInputs are what the app container gives the module.
type ModuleInputs struct {
	depinject.In

	Config                *modulev1.Module
	Codec                 codec.Codec
	StoreService          store.KVStoreService
	AddressCodec          address.Codec
	ValidatorAddressCodec runtime.ValidatorAddressCodec

	StakingKeeper  types.StakingKeeper
	SlashingKeeper types.SlashingKeeper
	BankKeeper     types.BankKeeper
	AuctionKeeper  types.AuctionKeeper
}

// ModuleOutputs are what the module gives the app container.
type ModuleOutputs struct {
	depinject.Out

	Keeper keeper.Keeper
	Module appmodule.AppModule
	// SendRestriction moves unbacked marks with every bank send (x/bank
	// installs every module's restriction at startup).
	SendRestriction banktypes.SendRestrictionFn
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
	k := keeper.NewKeeper(in.Codec, in.StoreService, in.AddressCodec, in.ValidatorAddressCodec,
		in.StakingKeeper, in.SlashingKeeper, in.BankKeeper, in.AuctionKeeper, authorityAddr)
	return ModuleOutputs{Keeper: k, Module: NewAppModule(k), SendRestriction: k.SendRestriction}
}

// AuctionWithdrawerSetter is the part of x/auction that takes the bridge's
// withdrawal path for wallet-signed withdrawals (MsgSubmitSignedWithdraw).
type AuctionWithdrawerSetter interface {
	SetEvmWithdrawer(w auctiontypes.EvmWithdrawer)
}

// InvokeSetAuctionWithdrawer gives x/auction the bridge's Withdraw, so a
// wallet account's signed withdrawal takes the same one path as
// MsgWithdrawToEvm.
func InvokeSetAuctionWithdrawer(auction AuctionWithdrawerSetter, k keeper.Keeper) {
	auction.SetEvmWithdrawer(k)
}
