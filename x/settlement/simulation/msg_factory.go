package simulation

import (
	"context"

	"github.com/cosmos/cosmos-sdk/testutil/simsx"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// MsgUpdateParamsFactory makes gov proposals that replace the params with random valid ones.
func MsgUpdateParamsFactory() simsx.SimMsgFactoryFn[*types.MsgUpdateParams] {
	return func(_ context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgUpdateParams) {
		params := RandomParams(testData.Rand().Rand, sdk.DefaultBondDenom)
		return nil, &types.MsgUpdateParams{Authority: testData.ModuleAccountAddress(reporter, "gov"), Params: params}
	}
}
