package keeper_test

import (
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/settlement/keeper"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestMigrate1to2: a chain with a commit-reveal audit live at the upgrade
// ends it CANCELLED with the auditor's fee back and the GPU back in the
// market, gives every registered GPU one audit_validity of grace, fills the
// models' bandwidths and the new params, and empties the retired indexes.
func (s *KeeperTestSuite) TestMigrate1to2() {
	s.provider(0, 2, 1_000_000)
	gpu := apptesting.GPUUUID(1)
	// Version 1 kept no passes: the fixture's are taken away.
	s.Require().NoError(s.keeper.Verifications.Clear(s.ctx, nil))
	s.Require().NoError(s.keeper.Expiry.Clear(s.ctx, nil))
	auditor := s.accs[4].Address
	fee := sdk.NewInt64Coin(chaincfg.USDCDenom, 5_000_000)
	before := s.usdc(auditor)
	s.Require().NoError(s.app.BankKeeper.SendCoinsFromAccountToModule(s.ctx, auditor, types.ModuleName, sdk.NewCoins(fee)))
	offer := s.offerOf(gpu)
	s.Require().NoError(s.app.OfferKeeper.OccupyForAudit(s.ctx, offer.Id, []string{gpu}))
	// A version-1 audit as it was stored: the auditor in field 2, no shape.
	old := types.Audit{Id: 1, Requester: s.operator(4), Provider: s.operator(0), GpuUuid: gpu, Model: h100,
		Workload: "idlegpu/matmul-u32/v1", Seed: make([]byte, 32), Fee: fee, OpenedAt: s.ctx.BlockTime(),
		Deadline: s.ctx.BlockTime().Add(time.Hour), AnswerBy: s.ctx.BlockTime().Add(time.Hour), Status: types.AUDIT_STATUS_OPEN,
		ReservedOfferId: offer.Id}
	s.Require().NoError(s.keeper.Audits.Set(s.ctx, 1, old))
	s.Require().NoError(s.keeper.AuditQueue.Set(s.ctx, collections.Join(old.QueueTime(), uint64(1))))
	store := s.ctx.KVStore(s.app.GetKey(types.StoreKey))
	store.Set(append(types.HeldKey.Bytes(), []byte(gpu)...), []byte{})
	store.Set(append(types.LiveAuditKey.Bytes(), s.accs[0].Address...), []byte{0, 0, 0, 0, 0, 0, 0, 1})
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	for i := range params.GpuModels {
		params.GpuModels[i].MemoryBandwidthGbps = 0
	}
	params.AuditSamples, params.AuditValiditySeconds, params.RandomAuditIntervalBlocks, params.ExpectedBlockMillis = 0, 0, 0, 0
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))

	s.Require().NoError(keeper.NewMigrator(s.keeper).Migrate1to2(s.ctx))

	a := s.getAudit(1)
	s.Require().Equal(types.AUDIT_STATUS_CANCELLED, a.Status)
	s.Require().Equal(before, s.usdc(auditor), "the auditor's fee is back, to the unit")
	s.Require().NotContains(s.offerOf(gpu).OccupiedGpuUuids, gpu, "the GPU is back in the market")
	for _, u := range s.offerOf(gpu).GpuUuids {
		v := s.verification(u)
		s.Require().True(v.Verified, u)
		s.Require().Equal(s.ctx.BlockTime().Add(7*24*time.Hour), v.Verification.VerifiedUntil, "one audit_validity of grace")
	}
	params, err = s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	s.Require().NoError(params.Validate())
	s.Require().Equal(types.DefaultGPUModels(), params.GpuModels)
	s.Require().EqualValues(16, params.AuditSamples)
	for _, prefix := range [][]byte{types.HeldKey.Bytes(), types.LiveAuditKey.Bytes()} {
		it := store.Iterator(prefix, append(prefix, 0xff))
		s.Require().False(it.Valid(), "retired index %x emptied", prefix)
		s.Require().NoError(it.Close())
	}
	s.Require().NoError(s.keeper.CheckInvariants(s.ctx))

	// A model whose bandwidth nobody published stops the upgrade.
	params.GpuModels = append(params.GpuModels, types.GPUModel{Model: "Acme X1", IdleW: 1, MaxW: 2, MemoryMib: 1024})
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	s.Require().ErrorContains(keeper.NewMigrator(s.keeper).Migrate1to2(s.ctx), "no published memory bandwidth for Acme X1")
}
