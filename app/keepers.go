package app

import (
	authkeeper "github.com/cosmos/cosmos-sdk/x/auth/keeper"
	authzkeeper "github.com/cosmos/cosmos-sdk/x/authz/keeper"
	bankkeeper "github.com/cosmos/cosmos-sdk/x/bank/keeper"
	consensuskeeper "github.com/cosmos/cosmos-sdk/x/consensus/keeper"
	distrkeeper "github.com/cosmos/cosmos-sdk/x/distribution/keeper"
	evidencekeeper "github.com/cosmos/cosmos-sdk/x/evidence/keeper"
	feegrantkeeper "github.com/cosmos/cosmos-sdk/x/feegrant/keeper"
	govkeeper "github.com/cosmos/cosmos-sdk/x/gov/keeper"
	mintkeeper "github.com/cosmos/cosmos-sdk/x/mint/keeper"
	protocolpoolkeeper "github.com/cosmos/cosmos-sdk/x/protocolpool/keeper"
	slashingkeeper "github.com/cosmos/cosmos-sdk/x/slashing/keeper"
	stakingkeeper "github.com/cosmos/cosmos-sdk/x/staking/keeper"
	upgradekeeper "github.com/cosmos/cosmos-sdk/x/upgrade/keeper"

	auctionkeeper "github.com/idlegpu/idlegpu/x/auction/keeper"
	bridgekeeper "github.com/idlegpu/idlegpu/x/bridge/keeper"
	offerkeeper "github.com/idlegpu/idlegpu/x/offer/keeper"
	providerkeeper "github.com/idlegpu/idlegpu/x/provider/keeper"
	settlementkeeper "github.com/idlegpu/idlegpu/x/settlement/keeper"
)

// Keepers are every module keeper of the chain. The runtime builds them from
// the app config; they are exported for tests, upgrades and export.
type Keepers struct {
	AccountKeeper         authkeeper.AccountKeeper
	BankKeeper            bankkeeper.BaseKeeper
	StakingKeeper         *stakingkeeper.Keeper
	SlashingKeeper        slashingkeeper.Keeper
	MintKeeper            mintkeeper.Keeper
	DistrKeeper           distrkeeper.Keeper
	GovKeeper             *govkeeper.Keeper
	UpgradeKeeper         *upgradekeeper.Keeper
	AuthzKeeper           authzkeeper.Keeper
	EvidenceKeeper        evidencekeeper.Keeper
	FeeGrantKeeper        feegrantkeeper.Keeper
	ConsensusParamsKeeper consensuskeeper.Keeper
	ProtocolPoolKeeper    protocolpoolkeeper.Keeper

	ProviderKeeper   providerkeeper.Keeper
	OfferKeeper      offerkeeper.Keeper
	AuctionKeeper    auctionkeeper.Keeper
	SettlementKeeper settlementkeeper.Keeper
	BridgeKeeper     bridgekeeper.Keeper
}

// injectTargets lists the fields depinject fills.
func (k *Keepers) injectTargets() []any {
	return []any{
		&k.AccountKeeper,
		&k.BankKeeper,
		&k.StakingKeeper,
		&k.SlashingKeeper,
		&k.MintKeeper,
		&k.DistrKeeper,
		&k.GovKeeper,
		&k.UpgradeKeeper,
		&k.AuthzKeeper,
		&k.EvidenceKeeper,
		&k.FeeGrantKeeper,
		&k.ConsensusParamsKeeper,
		&k.ProtocolPoolKeeper,
		&k.ProviderKeeper,
		&k.OfferKeeper,
		&k.AuctionKeeper,
		&k.SettlementKeeper,
		&k.BridgeKeeper,
	}
}
