package keeper_test

import (
	"time"

	"github.com/cosmos/cosmos-sdk/runtime"
	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"
	"github.com/cosmos/cosmos-sdk/testutil"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/settlement/audit"
	"github.com/idlegpu/idlegpu/x/settlement/keeper"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestGenesisRoundTrip: the state after real proofs (headers, progress,
// proofs, rewards) and audits (a verdict, a live one, cooldowns) exports,
// imports into an empty store, and exports again unchanged.
func (s *KeeperTestSuite) TestGenesisRoundTrip() {
	s.devChain()
	s.provider(0, 1, 1_000_000)
	l := s.lease(3, 1, 1200*time.Second, 2_000_000)
	_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 0)
	s.until(to)
	_, err := s.submit(agent, 0, s.proof(l, 0, 400))
	s.Require().NoError(err)
	gpus := s.simProvider(1, 3)
	s.passAudit(s.requestRequired(gpus[0])) // a verdict, a pass
	s.requestRequired(gpus[1])              // live, OPEN
	answered := s.requestRequired(gpus[2])  // live, ANSWERED, samples not drawn yet
	s.Require().NoError(s.answerRoot(answered, make([]byte, 32)))
	s.halt(10 * time.Minute) // lost time

	exported, err := s.keeper.ExportGenesis(s.ctx)
	s.Require().NoError(err)
	s.Require().NotEmpty(exported.Headers)
	s.Require().Len(exported.Progress, 1)
	s.Require().Len(exported.Proofs, 1)
	s.Require().Len(exported.Rewards, 1)
	s.Require().Len(exported.Audits, 3)
	s.Require().Len(exported.Cooldowns, 3)
	s.Require().Len(exported.Verifications, 2, "the pass and the provider-0 grant")
	s.Require().Len(exported.Holds, 2, "the two live audits")
	s.Require().NotZero(exported.LostMs)
	s.Require().Len(exported.FeeRemainders, 1, "the proof's fee left a fraction to carry")
	s.Require().EqualValues(4, exported.NextAuditId)

	key := storetypes.NewKVStoreKey(types.StoreKey)
	fresh := testutil.DefaultContextWithDB(s.T(), key, storetypes.NewTransientStoreKey("t")).Ctx
	k := keeper.NewKeeper(s.app.AppCodec(), runtime.NewKVStoreService(key), s.addrCodec, nil, nil, nil, nil, authtypes.FeeCollectorName, s.authority)
	s.Require().NoError(k.InitGenesis(fresh, exported))
	again, err := k.ExportGenesis(fresh)
	s.Require().NoError(err)
	s.Require().Equal(exported, again)
	s.Require().NoError(k.AuditIndexInvariant(fresh), "queue and live index rebuilt from the audits")
}

func (s *KeeperTestSuite) TestInitGenesisRejectsInvalidState() {
	params := types.DefaultParams()
	params.ProofGraceSeconds = 0
	err := s.keeper.InitGenesis(s.ctx, &types.GenesisState{Params: params})
	s.Require().ErrorIs(err, types.ErrInvalidGenesis)
	s.Require().ErrorContains(err, "proof_grace_seconds must be greater than 0")

	for name, gs := range map[string]types.GenesisState{
		"short header hash":        {Params: types.DefaultParams(), Headers: []types.HeaderRecord{{Height: 1, Hash: []byte{1}}}},
		"headers out of order":     {Params: types.DefaultParams(), Headers: []types.HeaderRecord{{Height: 2, Hash: headerHash(2)}, {Height: 1, Hash: headerHash(1)}}},
		"progress without epoch":   {Params: types.DefaultParams(), Progress: []types.LeaseProgress{{LeaseId: 1}}},
		"more proven than settled": {Params: types.DefaultParams(), Progress: []types.LeaseProgress{{LeaseId: 1, EpochSeconds: 600, ProvenEpochs: 2, NextEpoch: 1}}},
		"bad rewards provider":     {Params: types.DefaultParams(), Rewards: []types.ProviderRewards{{Provider: "nobody"}}},
		"audit id not below next":  {Params: types.DefaultParams(), NextAuditId: 1, Audits: []types.Audit{s.validAudit(1, 0)}},
		"two live audits of one GPU": {Params: types.DefaultParams(), NextAuditId: 3,
			Audits: []types.Audit{s.validAudit(1, 0), s.validAudit(2, 0)}},
		"verdict still holding a GPU": {Params: types.DefaultParams(), NextAuditId: 2, Audits: []types.Audit{func() types.Audit {
			a := s.validAudit(1, 0)
			a.Status, a.Root, a.PruneAt, a.ReservedOfferId = types.AUDIT_STATUS_CORRECT, make([]byte, 32), s.ctx.BlockTime(), 4
			return a
		}()}},
		"missed with a root": {Params: types.DefaultParams(), NextAuditId: 2, Audits: []types.Audit{func() types.Audit {
			a := s.validAudit(1, 0)
			a.Status, a.Root, a.PruneAt = types.AUDIT_STATUS_MISSED, make([]byte, 32), s.ctx.BlockTime()
			return a
		}()}},
		"a shape too small": {Params: types.DefaultParams(), NextAuditId: 2, Audits: []types.Audit{func() types.Audit {
			a := s.validAudit(1, 0)
			a.Shape.TableItems = 1
			return a
		}()}},
		"verifications unsorted":   {Params: types.DefaultParams(), Verifications: []types.GPUVerification{{GpuUuid: "b"}, {GpuUuid: "a"}}},
		"cooldowns unsorted":       {Params: types.DefaultParams(), Cooldowns: []types.GPUAuditCooldown{{GpuUuid: "b"}, {GpuUuid: "a"}}},
		"a whole fee unit carried": {Params: types.DefaultParams(), FeeRemainders: []types.FeeRemainder{{Provider: s.operator(0), Denom: "uusdc", Remainder: 10_000}}},
		"fee remainders unsorted": {Params: types.DefaultParams(), FeeRemainders: []types.FeeRemainder{
			{Provider: s.operator(0), Denom: "uusdc", Remainder: 1}, {Provider: s.operator(0), Denom: "ugpu", Remainder: 1}}},
	} { //detlint:allow independent cases
		s.Require().ErrorIs(gs.Validate(), types.ErrInvalidGenesis, name)
	}
	ok := types.GenesisState{Params: types.DefaultParams(), NextAuditId: 2, Audits: []types.Audit{s.validAudit(1, 0)}}
	s.Require().NoError(ok.Validate())
}

// validAudit is a well-formed OPEN audit of provider i's GPU 1.
func (s *KeeperTestSuite) validAudit(id uint64, i int) types.Audit {
	shape, err := audit.ShapeFor(2)
	s.Require().NoError(err)
	return types.Audit{
		Id: id, Provider: s.operator(i), GpuUuid: apptesting.GPUUUID(1), Model: types.SimulatedGPUModel,
		Workload: audit.MemWalkV1Name, Seed: make([]byte, 32), Shape: types.NewAuditShape(shape), Samples: 16,
		OpenedAt: s.ctx.BlockTime(), Deadline: s.ctx.BlockTime().Add(time.Hour), AnswerBy: s.ctx.BlockTime().Add(time.Hour),
		Status: types.AUDIT_STATUS_OPEN,
	}
}
