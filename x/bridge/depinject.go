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
	appconfig.RegisterModule(&modulev1.Module{}, appconfig.Provide(ProvideModule), appconfig.Invoke(InvokeSetAuctionVault))
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
		in.StakingKeeper, in.SlashingKeeper, in.BankKeeper, authorityAddr)
	return ModuleOutputs{Keeper: k, Module: NewAppModule(k), SendRestriction: k.SendRestriction}
}

// AuctionVaultSetter is the part of x/auction that takes the bridge's
// vault: the withdrawal path of wallet-signed withdrawals
// (MsgSubmitSignedWithdraw) and the EIP-712 domain of every wallet-signed
// message.
type AuctionVaultSetter interface {
	SetEvmVault(v auctiontypes.EvmVault)
}

// InvokeSetAuctionVault gives x/auction the bridge's vault, so a wallet
// account's signed withdrawal takes the same one path as MsgWithdrawToEvm
// and every signature is checked against the one vault's domain.
func InvokeSetAuctionVault(auction AuctionVaultSetter, k keeper.Keeper) {
	auction.SetEvmVault(k)
}
