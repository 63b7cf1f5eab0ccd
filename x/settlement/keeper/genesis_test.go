package keeper_test

import (
	"time"

	"github.com/cosmos/cosmos-sdk/runtime"
	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"
	"github.com/cosmos/cosmos-sdk/testutil"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/x/settlement/audit"
	"github.com/idlegpu/idlegpu/x/settlement/keeper"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestGenesisRoundTrip: the state after real proofs (headers, progress,
// proofs, rewards) and audits (a verdict, a live one, cooldowns) exports,
// imports into an empty store, and exports again unchanged.
func (s *KeeperTestSuite) TestGenesisRoundTrip() {
	s.allowAuditor()
	s.provider(0, 1, 1_000_000)
	s.provider(1, 1, 9_000_000)
	s.provider(4, 1, 9_000_000)
	l := s.lease(3, 1, 1200*time.Second, 2_000_000)
	_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 0)
	s.until(to)
	_, err := s.submit(agent, 0, s.proof(l, 0, 400))
	s.Require().NoError(err)
	p := s.plan(7)
	_, err = s.msgServer.OpenAudit(s.ctx, s.openMsg(p, 1, gpuUUID(2)))
	s.Require().NoError(err)
	s.Require().NoError(s.answer(1, p.expected[:]))
	_, err = s.reveal(1, p.salt[:], p.expected[:])
	s.Require().NoError(err)
	_, err = s.msgServer.OpenAudit(s.ctx, s.openMsg(s.plan(8), 4, gpuUUID(3)))
	s.Require().NoError(err)

	exported, err := s.keeper.ExportGenesis(s.ctx)
	s.Require().NoError(err)
	s.Require().NotEmpty(exported.Headers)
	s.Require().Len(exported.Progress, 1)
	s.Require().Len(exported.Proofs, 1)
	s.Require().Len(exported.Rewards, 2)
	s.Require().Len(exported.Audits, 2)
	s.Require().Len(exported.Cooldowns, 2)
	s.Require().EqualValues(3, exported.NextAuditId)

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
		"two live audits of one provider": {Params: types.DefaultParams(), NextAuditId: 3,
			Audits: []types.Audit{s.validAudit(1, 0), s.validAudit(2, 0)}},
		"verdict still holding a GPU": {Params: types.DefaultParams(), NextAuditId: 2, Audits: []types.Audit{func() types.Audit {
			a := s.validAudit(1, 0)
			a.Status, a.Result, a.PruneAt, a.ReservedOfferId = types.AUDIT_STATUS_CORRECT, make([]byte, 32), s.ctx.BlockTime(), 4
			return a
		}()}},
		"timed out with a result": {Params: types.DefaultParams(), NextAuditId: 2, Audits: []types.Audit{func() types.Audit {
			a := s.validAudit(1, 0)
			a.Status, a.Result, a.PruneAt = types.AUDIT_STATUS_TIMED_OUT, make([]byte, 32), s.ctx.BlockTime()
			return a
		}()}},
		"cooldowns unsorted": {Params: types.DefaultParams(), Cooldowns: []types.GPUAuditCooldown{{GpuUuid: "b"}, {GpuUuid: "a"}}},
	} { //detlint:allow independent cases
		s.Require().ErrorIs(gs.Validate(), types.ErrInvalidGenesis, name)
	}
	ok := types.GenesisState{Params: types.DefaultParams(), NextAuditId: 2, Audits: []types.Audit{s.validAudit(1, 0)}}
	s.Require().NoError(ok.Validate())
}

// validAudit is a well-formed OPEN audit of provider i.
func (s *KeeperTestSuite) validAudit(id uint64, i int) types.Audit {
	return types.Audit{
		Id: id, Auditor: s.operator(auditor), Provider: s.operator(i), GpuUuid: gpuUUID(1), Model: h100,
		Workload: audit.MatMulV1Name, Seed: make([]byte, 32), WorkUnits: 1, Commitment: make([]byte, 32), Fee: auditFee,
		OpenedAt: s.ctx.BlockTime(), Deadline: s.ctx.BlockTime().Add(time.Hour), RevealBy: s.ctx.BlockTime().Add(2 * time.Hour),
		Status: types.AUDIT_STATUS_OPEN,
	}
}
