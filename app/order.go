package app

import (
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	"github.com/cosmos/cosmos-sdk/x/authz"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	consensustypes "github.com/cosmos/cosmos-sdk/x/consensus/types"
	distrtypes "github.com/cosmos/cosmos-sdk/x/distribution/types"
	evidencetypes "github.com/cosmos/cosmos-sdk/x/evidence/types"
	"github.com/cosmos/cosmos-sdk/x/feegrant"
	genutiltypes "github.com/cosmos/cosmos-sdk/x/genutil/types"
	govtypes "github.com/cosmos/cosmos-sdk/x/gov/types"
	minttypes "github.com/cosmos/cosmos-sdk/x/mint/types"
	protocolpooltypes "github.com/cosmos/cosmos-sdk/x/protocolpool/types"
	slashingtypes "github.com/cosmos/cosmos-sdk/x/slashing/types"
	stakingtypes "github.com/cosmos/cosmos-sdk/x/staking/types"
	upgradetypes "github.com/cosmos/cosmos-sdk/x/upgrade/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// The order in which modules run their block hooks and genesis. Kept in one
// file so a reviewer sees every ordering decision together.
var (
	// preBlockers: upgrade first so a scheduled upgrade halts the old binary
	// before anything else runs; auth then sets up unordered-tx state.
	preBlockers = []string{
		upgradetypes.ModuleName,
		authtypes.ModuleName,
	}

	// beginBlockers: mint before distribution so this block's inflation is
	// distributed; slashing after distribution so the fee pool is settled
	// before validators lose stake (the SDK's CanWithdraw invariant).
	beginBlockers = []string{
		minttypes.ModuleName,
		distrtypes.ModuleName,
		protocolpooltypes.ModuleName,
		slashingtypes.ModuleName,
		evidencetypes.ModuleName,
		stakingtypes.ModuleName,
		authz.ModuleName,
		providertypes.ModuleName,
		offertypes.ModuleName,
		auctiontypes.ModuleName,
		settlementtypes.ModuleName,
	}

	// endBlockers: bank first (SDK v0.54 requires it, for BlockSTM's object
	// store finalisation). The market runs before staking so its slashes of
	// provider stake never interleave with validator set updates: auction
	// clears jobs, then settlement checks liveness of the leases that exist,
	// then provider completes unbondings with any slash already applied.
	endBlockers = []string{
		banktypes.ModuleName,
		govtypes.ModuleName,
		auctiontypes.ModuleName,
		settlementtypes.ModuleName,
		offertypes.ModuleName,
		providertypes.ModuleName,
		bridgetypes.ModuleName,
		stakingtypes.ModuleName,
		feegrant.ModuleName,
		protocolpooltypes.ModuleName,
	}

	// initGenesis: auth and bank before anything that holds coins; staking
	// before genutil so gentxs can bond; provider before the modules that
	// reference providers (offer → auction → settlement).
	initGenesis = []string{
		authtypes.ModuleName,
		banktypes.ModuleName,
		distrtypes.ModuleName,
		stakingtypes.ModuleName,
		slashingtypes.ModuleName,
		govtypes.ModuleName,
		minttypes.ModuleName,
		genutiltypes.ModuleName,
		evidencetypes.ModuleName,
		authz.ModuleName,
		feegrant.ModuleName,
		upgradetypes.ModuleName,
		consensustypes.ModuleName,
		protocolpooltypes.ModuleName,
		providertypes.ModuleName,
		offertypes.ModuleName,
		auctiontypes.ModuleName,
		settlementtypes.ModuleName,
		bridgetypes.ModuleName,
	}
)
