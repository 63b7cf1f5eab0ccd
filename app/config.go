package app

import (
	runtimev1alpha1 "cosmossdk.io/api/cosmos/app/runtime/v1alpha1"
	appv1alpha1 "cosmossdk.io/api/cosmos/app/v1alpha1"
	authmodulev1 "cosmossdk.io/api/cosmos/auth/module/v1"
	authzmodulev1 "cosmossdk.io/api/cosmos/authz/module/v1"
	bankmodulev1 "cosmossdk.io/api/cosmos/bank/module/v1"
	consensusmodulev1 "cosmossdk.io/api/cosmos/consensus/module/v1"
	distrmodulev1 "cosmossdk.io/api/cosmos/distribution/module/v1"
	evidencemodulev1 "cosmossdk.io/api/cosmos/evidence/module/v1"
	feegrantmodulev1 "cosmossdk.io/api/cosmos/feegrant/module/v1"
	genutilmodulev1 "cosmossdk.io/api/cosmos/genutil/module/v1"
	govmodulev1 "cosmossdk.io/api/cosmos/gov/module/v1"
	mintmodulev1 "cosmossdk.io/api/cosmos/mint/module/v1"
	protocolpoolmodulev1 "cosmossdk.io/api/cosmos/protocolpool/module/v1"
	slashingmodulev1 "cosmossdk.io/api/cosmos/slashing/module/v1"
	stakingmodulev1 "cosmossdk.io/api/cosmos/staking/module/v1"
	txconfigv1 "cosmossdk.io/api/cosmos/tx/config/v1"
	upgrademodulev1 "cosmossdk.io/api/cosmos/upgrade/module/v1"
	"cosmossdk.io/depinject"
	"cosmossdk.io/depinject/appconfig"

	"github.com/cosmos/cosmos-sdk/runtime"
	"github.com/cosmos/cosmos-sdk/types/module"
	_ "github.com/cosmos/cosmos-sdk/x/auth" // registers the module config
	_ "github.com/cosmos/cosmos-sdk/x/auth/tx/config"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	"github.com/cosmos/cosmos-sdk/x/authz"
	_ "github.com/cosmos/cosmos-sdk/x/authz/module"
	_ "github.com/cosmos/cosmos-sdk/x/bank"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	_ "github.com/cosmos/cosmos-sdk/x/consensus"
	consensustypes "github.com/cosmos/cosmos-sdk/x/consensus/types"
	_ "github.com/cosmos/cosmos-sdk/x/distribution"
	distrtypes "github.com/cosmos/cosmos-sdk/x/distribution/types"
	_ "github.com/cosmos/cosmos-sdk/x/evidence"
	evidencetypes "github.com/cosmos/cosmos-sdk/x/evidence/types"
	"github.com/cosmos/cosmos-sdk/x/feegrant"
	_ "github.com/cosmos/cosmos-sdk/x/feegrant/module"
	"github.com/cosmos/cosmos-sdk/x/genutil"
	genutiltypes "github.com/cosmos/cosmos-sdk/x/genutil/types"
	_ "github.com/cosmos/cosmos-sdk/x/gov"
	govtypes "github.com/cosmos/cosmos-sdk/x/gov/types"
	_ "github.com/cosmos/cosmos-sdk/x/mint"
	minttypes "github.com/cosmos/cosmos-sdk/x/mint/types"
	_ "github.com/cosmos/cosmos-sdk/x/protocolpool"
	protocolpooltypes "github.com/cosmos/cosmos-sdk/x/protocolpool/types"
	_ "github.com/cosmos/cosmos-sdk/x/slashing"
	slashingtypes "github.com/cosmos/cosmos-sdk/x/slashing/types"
	_ "github.com/cosmos/cosmos-sdk/x/staking"
	stakingtypes "github.com/cosmos/cosmos-sdk/x/staking/types"
	_ "github.com/cosmos/cosmos-sdk/x/upgrade"
	upgradetypes "github.com/cosmos/cosmos-sdk/x/upgrade/types"

	_ "github.com/idlegpu/idlegpu/x/auction"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	auctionmodulev1 "github.com/idlegpu/idlegpu/x/auction/types/module"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	_ "github.com/idlegpu/idlegpu/x/bridge"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
	bridgemodulev1 "github.com/idlegpu/idlegpu/x/bridge/types/module"
	_ "github.com/idlegpu/idlegpu/x/offer"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	offermodulev1 "github.com/idlegpu/idlegpu/x/offer/types/module"
	_ "github.com/idlegpu/idlegpu/x/provider"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	providermodulev1 "github.com/idlegpu/idlegpu/x/provider/types/module"
	_ "github.com/idlegpu/idlegpu/x/settlement"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
	settlementmodulev1 "github.com/idlegpu/idlegpu/x/settlement/types/module"
)

// appConfig declares every module of the chain and its configuration; the
// runtime builds keepers and wires them from it (depinject).
var appConfig = appconfig.Compose(&appv1alpha1.Config{
	Modules: []*appv1alpha1.ModuleConfig{
		{
			Name: runtime.ModuleName,
			Config: appconfig.WrapAny(&runtimev1alpha1.Module{
				AppName:       chaincfg.Name,
				PreBlockers:   preBlockers,
				BeginBlockers: beginBlockers,
				EndBlockers:   endBlockers,
				InitGenesis:   initGenesis,
				// x/auth's store has been called "acc" since the SDK's first release.
				OverrideStoreKeys: []*runtimev1alpha1.StoreKeyConfig{
					{ModuleName: authtypes.ModuleName, KvStoreKey: "acc"},
				},
			}),
		},
		{
			Name: authtypes.ModuleName,
			Config: appconfig.WrapAny(&authmodulev1.Module{
				Bech32Prefix:             chaincfg.Bech32Prefix,
				ModuleAccountPermissions: moduleAccPerms,
			}),
		},
		{
			Name: banktypes.ModuleName,
			Config: appconfig.WrapAny(&bankmodulev1.Module{
				BlockedModuleAccountsOverride: blockedModuleAccounts(),
			}),
		},
		{
			Name: stakingtypes.ModuleName,
			Config: appconfig.WrapAny(&stakingmodulev1.Module{
				Bech32PrefixValidator: chaincfg.Bech32PrefixValAddr,
				Bech32PrefixConsensus: chaincfg.Bech32PrefixConsAddr,
			}),
		},
		{Name: slashingtypes.ModuleName, Config: appconfig.WrapAny(&slashingmodulev1.Module{})},
		// The app builds the ante chain itself (newAnteHandler): the SDK's,
		// with secp256k1 signatures checked by libsecp256k1.
		{Name: "tx", Config: appconfig.WrapAny(&txconfigv1.Config{SkipAnteHandler: true})},
		{Name: genutiltypes.ModuleName, Config: appconfig.WrapAny(&genutilmodulev1.Module{})},
		{Name: authz.ModuleName, Config: appconfig.WrapAny(&authzmodulev1.Module{})},
		{Name: upgradetypes.ModuleName, Config: appconfig.WrapAny(&upgrademodulev1.Module{})},
		{Name: distrtypes.ModuleName, Config: appconfig.WrapAny(&distrmodulev1.Module{})},
		{Name: evidencetypes.ModuleName, Config: appconfig.WrapAny(&evidencemodulev1.Module{})},
		{Name: minttypes.ModuleName, Config: appconfig.WrapAny(&mintmodulev1.Module{})},
		{Name: feegrant.ModuleName, Config: appconfig.WrapAny(&feegrantmodulev1.Module{})},
		{Name: govtypes.ModuleName, Config: appconfig.WrapAny(&govmodulev1.Module{})},
		{Name: consensustypes.ModuleName, Config: appconfig.WrapAny(&consensusmodulev1.Module{})},
		{Name: protocolpooltypes.ModuleName, Config: appconfig.WrapAny(&protocolpoolmodulev1.Module{})},
		{Name: providertypes.ModuleName, Config: appconfig.WrapAny(&providermodulev1.Module{})},
		{Name: offertypes.ModuleName, Config: appconfig.WrapAny(&offermodulev1.Module{})},
		{Name: auctiontypes.ModuleName, Config: appconfig.WrapAny(&auctionmodulev1.Module{})},
		{Name: settlementtypes.ModuleName, Config: appconfig.WrapAny(&settlementmodulev1.Module{})},
		{Name: bridgetypes.ModuleName, Config: appconfig.WrapAny(&bridgemodulev1.Module{})},
	},
})

// AppConfig returns the depinject configuration of the whole chain, also used
// by the CLI and the in-process test network.
func AppConfig() depinject.Config {
	return depinject.Configs(
		appConfig,
		depinject.Supply(
			// genutil's module basic validates gentx messages.
			map[string]module.AppModuleBasic{
				genutiltypes.ModuleName: genutil.NewAppModuleBasic(genutiltypes.DefaultMessageValidator),
			},
		),
	)
}
