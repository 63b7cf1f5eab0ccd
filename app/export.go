package app

import (
	"encoding/json"
	"fmt"
	"slices"

	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"

	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	slashingtypes "github.com/cosmos/cosmos-sdk/x/slashing/types"
	"github.com/cosmos/cosmos-sdk/x/staking"
	stakingtypes "github.com/cosmos/cosmos-sdk/x/staking/types"
)

// ExportAppStateAndValidators exports the state of every module (or of
// modulesToExport) as a genesis. With forZeroHeight the state is reset for a
// chain restarting at height 0: rewards withdrawn, heights zeroed and every
// validator not in jailAllowedAddrs jailed.
func (app *App) ExportAppStateAndValidators(
	forZeroHeight bool,
	jailAllowedAddrs []string,
	modulesToExport []string,
) (servertypes.ExportedApp, error) {
	// Export as if the next block had begun, so rewards read as withdrawable.
	ctx := app.NewContextLegacy(true, cmtproto.Header{Height: app.LastBlockHeight()})
	height := app.LastBlockHeight() + 1
	if forZeroHeight {
		height = 0
		if err := app.prepForZeroHeightGenesis(ctx, jailAllowedAddrs); err != nil {
			return servertypes.ExportedApp{}, err
		}
	}

	genState, err := app.ModuleManager.ExportGenesisForModules(ctx, app.appCodec, modulesToExport)
	if err != nil {
		return servertypes.ExportedApp{}, err
	}
	appState, err := json.MarshalIndent(genState, "", "  ")
	if err != nil {
		return servertypes.ExportedApp{}, err
	}
	validators, err := staking.WriteValidators(ctx, app.StakingKeeper)
	if err != nil {
		return servertypes.ExportedApp{}, err
	}
	return servertypes.ExportedApp{
		AppState:        appState,
		Validators:      validators,
		Height:          height,
		ConsensusParams: app.GetConsensusParams(ctx),
	}, nil
}

// prepForZeroHeightGenesis settles distribution and resets staking and
// slashing heights so the exported state starts cleanly at height 0.
func (app *App) prepForZeroHeightGenesis(ctx sdk.Context, jailAllowedAddrs []string) error {
	valCodec := app.StakingKeeper.ValidatorAddressCodec()
	for _, addr := range jailAllowedAddrs {
		if _, err := valCodec.StringToBytes(addr); err != nil {
			return fmt.Errorf("invalid jail-allowed validator address %q: %w", addr, err)
		}
	}

	if err := app.settleDistribution(ctx); err != nil {
		return err
	}
	if err := app.resetStakingHeights(ctx, jailAllowedAddrs); err != nil {
		return err
	}
	return app.SlashingKeeper.IterateValidatorSigningInfos(ctx, func(addr sdk.ConsAddress, info slashingtypes.ValidatorSigningInfo) bool {
		info.StartHeight = 0
		return app.SlashingKeeper.SetValidatorSigningInfo(ctx, addr, info) != nil
	})
}

// settleDistribution withdraws all commission and rewards, sends leftover
// dust to the community pool, and re-creates the distribution records at height 0.
func (app *App) settleDistribution(ctx sdk.Context) error {
	valCodec := app.StakingKeeper.ValidatorAddressCodec()
	validators, err := app.StakingKeeper.GetAllValidators(ctx)
	if err != nil {
		return err
	}
	for _, val := range validators {
		valAddr, err := valCodec.StringToBytes(val.GetOperator())
		if err != nil {
			return err
		}
		// A validator without commission returns an error here; nothing to withdraw.
		_, _ = app.DistrKeeper.WithdrawValidatorCommission(ctx, valAddr)
	}

	dels, err := app.StakingKeeper.GetAllDelegations(ctx)
	if err != nil {
		return err
	}
	for _, del := range dels {
		valAddr, err := valCodec.StringToBytes(del.ValidatorAddress)
		if err != nil {
			return err
		}
		delAddr, err := app.AccountKeeper.AddressCodec().StringToBytes(del.DelegatorAddress)
		if err != nil {
			return err
		}
		if _, err := app.DistrKeeper.WithdrawDelegationRewards(ctx, delAddr, valAddr); err != nil {
			return err
		}
	}

	app.DistrKeeper.DeleteAllValidatorSlashEvents(ctx)
	app.DistrKeeper.DeleteAllValidatorHistoricalRewards(ctx)

	// Distribution records are re-created as if at height 0.
	ctx = ctx.WithBlockHeight(0)
	for _, val := range validators {
		valAddr, err := valCodec.StringToBytes(val.GetOperator())
		if err != nil {
			return err
		}
		scraps, err := app.DistrKeeper.GetValidatorOutstandingRewardsCoins(ctx, valAddr)
		if err != nil {
			return err
		}
		feePool, err := app.DistrKeeper.FeePool.Get(ctx)
		if err != nil {
			return err
		}
		feePool.CommunityPool = feePool.CommunityPool.Add(scraps...)
		if err := app.DistrKeeper.FeePool.Set(ctx, feePool); err != nil {
			return err
		}
		if err := app.DistrKeeper.Hooks().AfterValidatorCreated(ctx, valAddr); err != nil {
			return err
		}
	}
	for _, del := range dels {
		valAddr, err := valCodec.StringToBytes(del.ValidatorAddress)
		if err != nil {
			return err
		}
		delAddr, err := app.AccountKeeper.AddressCodec().StringToBytes(del.DelegatorAddress)
		if err != nil {
			return err
		}
		if err := app.DistrKeeper.Hooks().BeforeDelegationCreated(ctx, delAddr, valAddr); err != nil {
			return fmt.Errorf("error while incrementing period: %w", err)
		}
		if err := app.DistrKeeper.Hooks().AfterDelegationModified(ctx, delAddr, valAddr); err != nil {
			return fmt.Errorf("error while creating a new delegation period record: %w", err)
		}
	}
	return nil
}

// resetStakingHeights zeroes creation and unbonding heights and jails every
// validator not allowed to stay in the set.
func (app *App) resetStakingHeights(ctx sdk.Context, jailAllowedAddrs []string) error {
	var iterErr error
	if err := app.StakingKeeper.IterateRedelegations(ctx, func(_ int64, red stakingtypes.Redelegation) bool {
		for i := range red.Entries {
			red.Entries[i].CreationHeight = 0
		}
		iterErr = app.StakingKeeper.SetRedelegation(ctx, red)
		return iterErr != nil
	}); err != nil {
		return err
	}
	if iterErr != nil {
		return iterErr
	}
	if err := app.StakingKeeper.IterateUnbondingDelegations(ctx, func(_ int64, ubd stakingtypes.UnbondingDelegation) bool {
		for i := range ubd.Entries {
			ubd.Entries[i].CreationHeight = 0
		}
		iterErr = app.StakingKeeper.SetUnbondingDelegation(ctx, ubd)
		return iterErr != nil
	}); err != nil {
		return err
	}
	if iterErr != nil {
		return iterErr
	}

	validators, err := app.StakingKeeper.GetAllValidators(ctx)
	if err != nil {
		return err
	}
	for _, val := range validators {
		val.UnbondingHeight = 0
		if len(jailAllowedAddrs) > 0 && !slices.Contains(jailAllowedAddrs, val.GetOperator()) {
			val.Jailed = true
		}
		if err := app.StakingKeeper.SetValidator(ctx, val); err != nil {
			return err
		}
	}
	_, err = app.StakingKeeper.ApplyAndReturnValidatorSetUpdates(ctx)
	return err
}
