package keeper_test

import (
	"context"
	"math/rand"
	"time"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offerkeeper "github.com/idlegpu/idlegpu/x/offer/keeper"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providerkeeper "github.com/idlegpu/idlegpu/x/provider/keeper"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"github.com/idlegpu/idlegpu/x/settlement/audit"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// Audits (docs/design.md#audits): the tests play the honest agent with the
// CPU reference on the development chains' simulated model (a 2 MiB table,
// about a second per transcript), and the attacker with whatever messages
// any account may send.

// devChain makes the suite's chain a development chain: simulated GPUs
// allowed, the simulated model in the table, blocks expected every
// blockStep (so only stalls beyond it move audit deadlines).
func (s *KeeperTestSuite) devChain() {
	s.T().Helper()
	pp, err := s.app.ProviderKeeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	pp.AllowSimulatedGpus = true
	s.Require().NoError(s.app.ProviderKeeper.Params.Set(s.ctx, pp))
	sp, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	sp.GpuModels = append(sp.GpuModels, types.SimulatedModel())
	sp.ExpectedBlockMillis = uint64(blockStep / time.Millisecond)
	s.Require().NoError(sp.Validate())
	s.Require().NoError(s.keeper.Params.Set(s.ctx, sp))
}

// simProvider registers provider i with n simulated H100s and no audit
// pass, bonded for them, and returns their UUIDs.
func (s *KeeperTestSuite) simProvider(i, n int) []string {
	s.T().Helper()
	m := s.fixture()
	m.RegisterProvider(s.operator(i), "sim", "eu-de", s.operator(agent))
	gpus := apptesting.GPUs(s.nextGPU+1, n, h100, apptesting.H100MemoryMib)
	for j := range gpus {
		gpus[j].Simulated = true
	}
	s.nextGPU += n
	uuids := m.RegisterUnverifiedGPUs(s.operator(i), gpus)
	m.Bond(s.operator(i), m.RequiredStake(uint32(n)))
	m.SetReliability(s.operator(i), 10_000)
	return uuids
}

func (s *KeeperTestSuite) getAudit(id uint64) types.Audit {
	s.T().Helper()
	res, err := s.queryServer.Audit(s.ctx, &types.QueryAuditRequest{AuditId: id})
	s.Require().NoError(err)
	return res.Audit
}

// offerOf returns the offer holding a GPU.
func (s *KeeperTestSuite) offerOf(gpu string) offertypes.Offer {
	s.T().Helper()
	o, found, err := s.app.OfferKeeper.OfferOfGPU(s.ctx, gpu)
	s.Require().NoError(err)
	s.Require().True(found)
	return o
}

// requestRequired asks for a GPU's required audit as the provider's agent.
func (s *KeeperTestSuite) requestRequired(gpu string) uint64 {
	s.T().Helper()
	res, err := s.msgServer.RequestAudit(s.ctx, &types.MsgRequestAudit{Requester: s.operator(agent), GpuUuid: gpu})
	s.Require().NoError(err)
	return res.AuditId
}

// transcript is the honest agent's transcript of an audit.
func (s *KeeperTestSuite) transcript(a types.Audit) *types.AuditTranscript {
	s.T().Helper()
	states, err := audit.Run(context.Background(), a.Seed, a.Shape.Shape())
	s.Require().NoError(err)
	return types.NewAuditTranscript(states)
}

// tampered is a transcript whose states are all wrong: a device that
// skipped the work and made its leaves up.
func tampered(a types.Audit) *types.AuditTranscript {
	states := make(audit.States, a.Shape.Shape().Leaves()*audit.StateBytes)
	for i := range states {
		states[i] = byte(i*7 + 1)
	}
	return types.NewAuditTranscript(states)
}

func (s *KeeperTestSuite) answerRoot(id uint64, root []byte) error {
	_, err := s.msgServer.AnswerAudit(s.ctx, &types.MsgAnswerAudit{Signer: s.operator(agent), AuditId: id, Root: root})
	return err
}

// openings opens the audit's drawn samples from t.
func (s *KeeperTestSuite) openings(id uint64, t *types.AuditTranscript) []types.AuditOpening {
	s.T().Helper()
	res, err := s.queryServer.AuditSamples(s.ctx, &types.QueryAuditSamplesRequest{AuditId: id})
	s.Require().NoError(err)
	a := s.getAudit(id)
	s.Require().Len(res.Leaves, int(a.Samples))
	var out []types.AuditOpening
	for _, leaf := range res.Leaves {
		out = append(out, t.Opening(a.Shape.Shape(), leaf))
	}
	return out
}

func (s *KeeperTestSuite) prove(id uint64, o []types.AuditOpening) (*types.MsgProveAuditResponse, error) {
	return s.msgServer.ProveAudit(s.ctx, &types.MsgProveAudit{Signer: s.operator(agent), AuditId: id, Openings: o})
}

// passAudit answers and proves an audit honestly and checks CORRECT.
func (s *KeeperTestSuite) passAudit(id uint64) {
	s.T().Helper()
	t := s.transcript(s.getAudit(id))
	s.Require().NoError(s.answerRoot(id, t.Root()))
	s.nextBlock() // the next block's hash draws the samples
	res, err := s.prove(id, s.openings(id, t))
	s.Require().NoError(err)
	s.Require().Equal(types.AUDIT_STATUS_CORRECT, res.Status)
	s.Require().True(res.Slashed.IsZero())
}

func (s *KeeperTestSuite) createOffer(i int, gpus []string) (uint64, error) {
	res, err := offerkeeper.NewMsgServerImpl(s.app.OfferKeeper).CreateOffer(s.ctx, &offertypes.MsgCreateOffer{
		Signer: s.operator(i), Provider: s.operator(i), GpuUuids: gpus, Terms: apptesting.Terms(1_000_000),
	})
	if err != nil {
		return 0, err
	}
	return res.OfferId, nil
}

func (s *KeeperTestSuite) verification(gpu string) *types.QueryGPUVerificationResponse {
	s.T().Helper()
	res, err := s.queryServer.GPUVerification(s.ctx, &types.QueryGPUVerificationRequest{GpuUuid: gpu})
	s.Require().NoError(err)
	return res
}

// TestRequiredAuditBeforeFirstOffer: a new GPU cannot be offered; its
// provider's free required audit, answered and proved honestly, verifies
// it for audit_validity, and the offer goes through.
func (s *KeeperTestSuite) TestRequiredAuditBeforeFirstOffer() {
	s.devChain()
	gpu := s.simProvider(0, 1)[0]
	_, err := s.createOffer(0, []string{gpu})
	s.Require().ErrorIs(err, offertypes.ErrGPUHeld, "never verified")
	_, err = s.msgServer.RequestAudit(s.ctx, &types.MsgRequestAudit{Requester: s.operator(3), GpuUuid: gpu})
	s.Require().ErrorIs(err, types.ErrAuditFee, "only the provider asks without a fee")

	id := s.requestRequired(gpu)
	a := s.getAudit(id)
	s.Require().Equal(types.AUDIT_REASON_REQUIRED, a.Reason)
	s.Require().Equal(types.SimulatedGPUModel, a.Model, "a simulated GPU is audited with the simulated model")
	want, err := audit.ShapeFor(2)
	s.Require().NoError(err)
	s.Require().Equal(want, a.Shape.Shape())
	s.Require().Equal(uint64(16), uint64(a.Samples))
	// max(2 × expected + audit_latency, halt_gap + expected), whole seconds.
	s.Require().Equal(s.ctx.BlockTime().Add(123*time.Second), a.Deadline, "expected %d ms", a.ExpectedMs)
	_, err = s.msgServer.RequestAudit(s.ctx, &types.MsgRequestAudit{Requester: s.operator(agent), GpuUuid: gpu})
	s.Require().ErrorIs(err, types.ErrAuditPending, "one live audit per GPU")

	s.passAudit(id)
	v := s.verification(gpu)
	s.Require().True(v.Verified)
	s.Require().Equal(s.ctx.BlockTime().Add(7*24*time.Hour), v.Verification.VerifiedUntil)
	s.Require().True(s.rewards(0).IsZero(), "a required audit has no fee")
	_, err = s.createOffer(0, []string{gpu})
	s.Require().NoError(err, "verified: the GPU may be offered")
	_, err = s.msgServer.RequestAudit(s.ctx, &types.MsgRequestAudit{Requester: s.operator(agent), GpuUuid: gpu})
	s.Require().ErrorIs(err, types.ErrNotAuditable, "not required again before the renewal window")
}

// TestPaidAuditFeeGoesToProvider: anyone may audit an idle verified GPU by
// paying at least audit_request_fee; the provider gets the fee whatever
// the verdict and the requester gets nothing back, so no one profits from
// asking. Fees below the minimum, in unlisted denoms, for unverified GPUs
// or within the cooldown are refused with nothing moved.
func (s *KeeperTestSuite) TestPaidAuditFeeGoesToProvider() {
	s.devChain()
	gpus := s.simProvider(0, 2)
	s.passAudit(s.requestRequired(gpus[0]))
	requester := s.accs[3].Address
	before := s.usdc(requester)
	for name, tc := range map[string]struct {
		gpu string
		fee sdk.Coin
		err error
	}{
		"below the minimum": {gpus[0], sdk.NewInt64Coin(chaincfg.USDCDenom, 99_999), types.ErrAuditFee},
		"unlisted denom":    {gpus[0], sdk.NewInt64Coin("ustake", 1_000_000), types.ErrAuditFee},
		"unverified GPU":    {gpus[1], sdk.NewInt64Coin(chaincfg.USDCDenom, 100_000), types.ErrNotAuditable},
	} { //detlint:allow independent cases
		_, err := s.msgServer.RequestAudit(s.ctx, &types.MsgRequestAudit{Requester: s.operator(3), GpuUuid: tc.gpu, Fee: tc.fee})
		s.Require().ErrorIs(err, tc.err, name)
		s.Require().Equal(before, s.usdc(requester), "%s: nothing moved", name)
	}
	_, err := s.msgServer.RequestAudit(s.ctx, &types.MsgRequestAudit{Requester: s.operator(3), GpuUuid: gpus[0], Fee: sdk.NewInt64Coin(chaincfg.USDCDenom, 100_000)})
	s.Require().ErrorIs(err, types.ErrAuditCooldown, "audited at its required audit")

	s.until(s.ctx.BlockTime().Add(25 * time.Hour))
	res, err := s.msgServer.RequestAudit(s.ctx, &types.MsgRequestAudit{Requester: s.operator(3), GpuUuid: gpus[0], Fee: sdk.NewInt64Coin(chaincfg.USDCDenom, 150_000)})
	s.Require().NoError(err)
	s.Require().Equal(before.SubRaw(150_000), s.usdc(requester))
	s.Require().Equal(types.AUDIT_REASON_REQUESTED, s.getAudit(res.AuditId).Reason)
	s.passAudit(res.AuditId)
	s.Require().Equal(sdk.NewCoins(sdk.NewInt64Coin(chaincfg.USDCDenom, 150_000)), s.rewards(0), "the whole fee, to the provider")
	s.Require().Equal(before.SubRaw(150_000), s.usdc(requester), "the requester earns nothing from the verdict")
}

// TestTamperedTranscriptIsFraud: a device that made its transcript up
// commits to a root, opens the sampled leaves under it, and the chain's
// recomputation judges WRONG: slash_fraud_bps of the stake burned, the
// provider tombstoned, its leases failed. The requester's fee still goes
// to the provider's rewards and the requester gains nothing.
func (s *KeeperTestSuite) TestTamperedTranscriptIsFraud() {
	s.devChain()
	gpu := s.simProvider(0, 1)[0]
	stake := s.providerState(0).Stake.Amount
	id := s.requestRequired(gpu)
	fake := tampered(s.getAudit(id))
	s.Require().NoError(s.answerRoot(id, fake.Root()))
	s.nextBlock()
	res, err := s.prove(id, s.openings(id, fake))
	s.Require().NoError(err)
	s.Require().Equal(types.AUDIT_STATUS_WRONG, res.Status)
	pp, err := s.app.ProviderKeeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	want := stake.MulRaw(int64(pp.SlashFraudBps)).QuoRaw(10_000)
	s.Require().Equal(want, res.Slashed.Amount, "slash_fraud_bps of the stake")
	p := s.providerState(0)
	s.Require().Equal(stake.Sub(want), p.Stake.Amount)
	s.Require().Equal(providertypes.PROVIDER_STATUS_TOMBSTONED, p.Status)
	s.Require().False(s.verification(gpu).Verified)
	s.Require().Equal(types.AUDIT_STATUS_WRONG, s.getAudit(id).Status)
}

// TestOneWrongSegmentIsCaught: a transcript right everywhere but in one
// lane is caught when a sample lands there, and passes otherwise: the
// chain judges only what it recomputes (the bound is tested in
// x/settlement/audit's property test).
func (s *KeeperTestSuite) TestOneWrongSegmentIsCaught() {
	s.devChain()
	gpu := s.simProvider(0, 1)[0]
	id := s.requestRequired(gpu)
	a := s.getAudit(id)
	states, err := audit.Run(context.Background(), a.Seed, a.Shape.Shape())
	s.Require().NoError(err)
	shape := a.Shape.Shape()
	// Every leaf wrong but one lane's: f = 1 − 1/lanes, caught for sure.
	for i := shape.Segments; i < uint32(shape.Leaves()); i++ {
		states[uint64(i)*audit.StateBytes] ^= 0x80
	}
	t := types.NewAuditTranscript(states)
	s.Require().NoError(s.answerRoot(id, t.Root()))
	s.nextBlock()
	res, err := s.prove(id, s.openings(id, t))
	s.Require().NoError(err)
	s.Require().Equal(types.AUDIT_STATUS_WRONG, res.Status)
}

// TestMalformedProofIsRefusedNotJudged: openings that do not prove under
// the root, name other leaves, or leave out a predecessor are refused with
// nothing changed, and the honest proof still passes after them; the
// provider's openings are checked, never an outsider's.
func (s *KeeperTestSuite) TestMalformedProofIsRefusedNotJudged() {
	s.devChain()
	gpu := s.simProvider(0, 1)[0]
	id := s.requestRequired(gpu)
	t := s.transcript(s.getAudit(id))
	_, err := s.prove(id, nil)
	s.Require().ErrorIs(err, types.ErrInvalidAudit, "no openings")
	s.Require().NoError(s.answerRoot(id, t.Root()))
	_, err = s.prove(id, []types.AuditOpening{t.Opening(s.getAudit(id).Shape.Shape(), 1)})
	s.Require().ErrorIs(err, types.ErrAuditState, "samples drawn only by the next block")
	s.nextBlock()
	good := s.openings(id, t)
	clone := func() []types.AuditOpening {
		out := make([]types.AuditOpening, len(good))
		copy(out, good)
		return out
	}
	bad := map[string][]types.AuditOpening{}
	o := clone()
	o[0].LeafIndex++
	bad["another leaf"] = o
	o = clone()
	o[0].State = append([]byte{}, o[0].State...)
	o[0].State[0] ^= 1
	bad["a state not under the root"] = o
	o = clone()
	bad["too few"] = o[1:]
	o = clone()
	for i := range o {
		if len(o[i].PrevState) != 0 {
			o[i].PrevState, o[i].PrevPath = nil, nil
			break
		}
	}
	bad["a missing predecessor"] = o
	for name, o := range bad { //detlint:allow independent cases
		_, err := s.prove(id, o)
		s.Require().Error(err, name)
		s.Require().Equal(types.AUDIT_STATUS_ANSWERED, s.getAudit(id).Status, name)
	}
	_, err = s.msgServer.ProveAudit(s.ctx, &types.MsgProveAudit{Signer: s.operator(3), AuditId: id, Openings: good})
	s.Require().ErrorIs(err, types.ErrUnauthorized, "only the provider proves")
	res, err := s.prove(id, good)
	s.Require().NoError(err)
	s.Require().Equal(types.AUDIT_STATUS_CORRECT, res.Status)
}

// TestMissIsNotFraud: an audit with no root by its deadline is MISSED, one
// with a root but no proof UNPROVEN: neither is fraud. The first miss costs
// a reliability step and the pass; a second miss in a row (only the
// provider's own required audits can follow the first) also takes the
// liveness slash and jail — the stated, escalating failure cost.
func (s *KeeperTestSuite) TestMissIsNotFraud() {
	s.devChain()
	gpus := s.simProvider(0, 2)
	s.passAudit(s.requestRequired(gpus[0]))
	s.passAudit(s.requestRequired(gpus[1]))
	offerID, err := s.createOffer(0, gpus)
	s.Require().NoError(err)
	stake := s.providerState(0).Stake.Amount
	rep := func() providertypes.Reputation {
		r, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
		s.Require().NoError(err)
		return r
	}
	relBefore := rep().ReliabilityBps

	s.until(s.ctx.BlockTime().Add(25 * time.Hour))
	res, err := s.msgServer.RequestAudit(s.ctx, &types.MsgRequestAudit{Requester: s.operator(3), GpuUuid: gpus[0], Fee: sdk.NewInt64Coin(chaincfg.USDCDenom, 100_000)})
	s.Require().NoError(err)
	s.Require().Contains(s.offerOf(gpus[0]).OccupiedGpuUuids, gpus[0], "held in its offer while audited")
	s.until(s.getAudit(res.AuditId).Deadline.Add(time.Second))
	s.nextBlock()
	a := s.getAudit(res.AuditId)
	s.Require().Equal(types.AUDIT_STATUS_MISSED, a.Status)
	p := s.providerState(0)
	s.Require().Equal(stake, p.Stake.Amount, "a miss is not fraud: nothing slashed")
	s.Require().Equal(providertypes.PROVIDER_STATUS_ACTIVE, p.Status)
	s.Require().Less(rep().ReliabilityBps, relBefore, "one failed reliability step")
	s.Require().False(s.verification(gpus[0]).Verified)
	s.Require().EqualValues(1, s.verification(gpus[0]).Verification.MissesInRow)
	s.Require().Contains(s.offerOf(gpus[0]).OccupiedGpuUuids, gpus[0], "unverified: still out of the market")
	s.Require().Equal(sdk.NewCoins(sdk.NewInt64Coin(chaincfg.USDCDenom, 100_000)), s.rewards(0), "the fee is the provider's even so")
	_, err = s.msgServer.RequestAudit(s.ctx, &types.MsgRequestAudit{Requester: s.operator(4), GpuUuid: gpus[0], Fee: sdk.NewInt64Coin(chaincfg.USDCDenom, 100_000)})
	s.Require().ErrorIs(err, types.ErrNotAuditable, "no outsider can make it miss again")

	// The provider's own retry: answered, never proved → UNPROVEN, the
	// second miss in a row.
	id := s.requestRequired(gpus[0])
	s.Require().NoError(s.answerRoot(id, s.transcript(s.getAudit(id)).Root()))
	s.until(s.ctx.BlockTime().Add(11 * time.Minute))
	s.Require().Equal(types.AUDIT_STATUS_UNPROVEN, s.getAudit(id).Status)
	pp, err := s.app.ProviderKeeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	p = s.providerState(0)
	s.Require().Equal(stake.Sub(stake.MulRaw(int64(pp.SlashLivenessBps)).QuoRaw(10_000)), p.Stake.Amount, "slash_liveness_bps, not fraud")
	s.Require().Equal(providertypes.PROVIDER_STATUS_JAILED, p.Status)
	s.Require().EqualValues(2, s.verification(gpus[0]).Verification.MissesInRow)
	s.Require().Equal(offerID, s.offerOf(gpus[0]).Id)
}

// TestStallsNeverCostAnHonestAudit: however long the chain stalls while an
// audit runs — below, at and beyond halt_gap_seconds — the time lost
// beyond the expected block time moves both deadlines, and the honest
// provider answers, proves and passes after the stall.
func (s *KeeperTestSuite) TestStallsNeverCostAnHonestAudit() {
	s.devChain()
	sp, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	sp.ExpectedBlockMillis = 1000 // the real chain's blocks; the stalls are the gaps
	s.Require().NoError(s.keeper.Params.Set(s.ctx, sp))
	stalls := []time.Duration{60, 90, 119, 121, 1200}
	gpus := s.simProvider(0, len(stalls))
	for i, stall := range stalls {
		stall *= time.Second
		gpu := gpus[i]
		stake := s.providerState(0).Stake.Amount
		id := s.requestRequired(gpu)
		a := s.getAudit(id)
		// Blocks keep coming but slowly: each gap is stall long, until
		// well past the deadline as opened.
		for s.ctx.BlockTime().Before(a.Deadline.Add(time.Minute)) {
			s.halt(stall)
		}
		s.Require().Equal(types.AUDIT_STATUS_OPEN, s.getAudit(id).Status, "stall %s", stall)
		t := s.transcript(a)
		s.Require().NoError(s.answerRoot(id, t.Root()), "stall %s", stall)
		for end := s.ctx.BlockTime().Add(11 * time.Minute); s.ctx.BlockTime().Before(end); {
			s.halt(stall)
		}
		res, err := s.prove(id, s.openings(id, t))
		s.Require().NoError(err, "stall %s", stall)
		s.Require().Equal(types.AUDIT_STATUS_CORRECT, res.Status, "stall %s", stall)
		s.Require().Equal(stake, s.providerState(0).Stake.Amount, "stall %s", stall)
		s.Require().Equal(providertypes.PROVIDER_STATUS_ACTIVE, s.providerState(0).Status, "stall %s", stall)
	}
}

// TestLeasedGPUIsNeverAudited: no audit interrupts a lease, a self-lease
// included; a GPU whose pass ends during a lease finishes the lease, then
// stays out of the market until it passes again (held stays held).
func (s *KeeperTestSuite) TestLeasedGPUIsNeverAudited() {
	s.devChain()
	sp, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	sp.AuditValiditySeconds = 1800 // the pass ends during the hour's lease
	s.Require().NoError(s.keeper.Params.Set(s.ctx, sp))
	gpu := s.simProvider(0, 1)[0]
	s.passAudit(s.requestRequired(gpu))
	until := s.verification(gpu).Verification.VerifiedUntil
	_, err = s.createOffer(0, []string{gpu})
	s.Require().NoError(err)
	l := s.lease(0, 1, 3600*time.Second, 2_000_000) // the provider rents its own GPU
	_, err = s.msgServer.RequestAudit(s.ctx, &types.MsgRequestAudit{Requester: s.operator(agent), GpuUuid: gpu})
	s.Require().ErrorIs(err, types.ErrNotAuditable, "a self-lease is a lease: never interrupted")

	for k := uint64(0); s.ctx.BlockTime().Before(until.Add(time.Minute)); k++ { // the provider proves its lease
		_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, k)
		s.until(to)
		_, err := s.submit(agent, 0, s.proof(l, k, 500))
		s.Require().NoError(err, "epoch %d", k)
	}
	s.Require().False(s.verification(gpu).Verified)
	s.Require().Equal(auctiontypes.LEASE_STATUS_ACTIVE, s.getLease(l.Id).Status, "the running lease goes on")
	held, err := s.keeper.GPUReserved(s.ctx, gpu)
	s.Require().NoError(err)
	s.Require().True(held, "its pass ended: held for when the lease ends")
	_, err = s.auction.CloseLease(s.ctx, &auctiontypes.MsgCloseLease{Signer: s.operator(0), LeaseId: l.Id, Reason: "done"})
	s.Require().NoError(err)
	s.until(s.ctx.BlockTime().Add(30 * time.Minute))
	s.Require().Contains(s.offerOf(gpu).OccupiedGpuUuids, gpu, "the lease ended; the GPU stays out of the market")
	s.Require().NoError(s.keeper.HeldInvariant(s.ctx))
	id := s.postJob(3, trainingJob(1, 600, 4_000_000))
	s.nextBlock()
	job, err := s.app.AuctionKeeper.Job(s.ctx, id)
	s.Require().NoError(err)
	s.Require().Equal(auctiontypes.JOB_STATUS_EXPIRED, job.Status, "nobody can lease the unverified GPU")
	s.passAudit(s.requestRequired(gpu))
	s.Require().NotContains(s.offerOf(gpu).OccupiedGpuUuids, gpu, "back in the market with its pass")
}

// TestRandomAuditsPickIdleVerifiedGPUs: each draw opens an audit of a GPU
// picked from the block hash, only if it is idle and verified; an unverified
// or leased GPU is skipped, not retried.
func (s *KeeperTestSuite) TestRandomAuditsPickIdleVerifiedGPUs() {
	s.devChain()
	gpus := s.simProvider(0, 3)
	s.passAudit(s.requestRequired(gpus[0]))
	sp, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	sp.RandomAuditsPerDraw, sp.RandomAuditIntervalBlocks, sp.AuditCooldownSeconds = 3, 1, 60
	s.Require().NoError(s.keeper.Params.Set(s.ctx, sp))
	next, err := s.keeper.AuditSeq.Peek(s.ctx)
	s.Require().NoError(err)
	s.nextBlock()
	s.nextBlock()
	var random []types.Audit
	for id := next; ; id++ {
		a, err := s.keeper.Audits.Get(s.ctx, id)
		if err != nil {
			break
		}
		random = append(random, a)
	}
	s.Require().NotEmpty(random, "three draws over one eligible GPU of three")
	for _, a := range random {
		s.Require().Equal(types.AUDIT_REASON_RANDOM, a.Reason)
		s.Require().Equal(gpus[0], a.GpuUuid, "only the verified GPU")
		s.Require().Empty(a.Requester)
		s.Require().True(a.Fee.IsZero())
	}
	s.Require().Len(random, 1, "one live audit per GPU")
}

// TestSimulatedGPUsOnlyOnDevelopmentChains: a chain that does not allow
// simulated GPUs refuses their registration, and once a chain stops
// allowing them it refuses their answers.
func (s *KeeperTestSuite) TestSimulatedGPUsOnlyOnDevelopmentChains() {
	m := s.fixture()
	m.RegisterProvider(s.operator(1), "sim", "eu-de", s.operator(agent))
	g := apptesting.GPU(900, h100, apptesting.H100MemoryMib)
	g.Simulated = true
	_, err := providerkeeper.NewMsgServerImpl(s.app.ProviderKeeper).RegisterGPUs(s.ctx, &providertypes.MsgRegisterGPUs{Signer: s.operator(1), Provider: s.operator(1), Gpus: []providertypes.GPUInfo{g}})
	s.Require().ErrorIs(err, providertypes.ErrSimulatedGPU)

	s.devChain()
	gpu := s.simProvider(0, 1)[0]
	id := s.requestRequired(gpu)
	pp, err := s.app.ProviderKeeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	pp.AllowSimulatedGpus = false
	s.Require().NoError(s.app.ProviderKeeper.Params.Set(s.ctx, pp))
	s.Require().ErrorIs(s.answerRoot(id, make([]byte, 32)), types.ErrNotAuditable)
}

// TestNoMessageMovesHonestStake: whatever any account sends — paid and
// unpaid requests, answers and proofs with garbage, for every audit —
// while the honest provider's agent answers and proves its audits, the
// provider's stake and status never change and no other account's
// balance grows from them.
func (s *KeeperTestSuite) TestNoMessageMovesHonestStake() {
	s.devChain()
	gpus := s.simProvider(0, 2)
	for _, g := range gpus {
		s.passAudit(s.requestRequired(g))
	}
	stake := s.providerState(0).Stake
	balances := func() []sdk.Coins {
		var out []sdk.Coins
		for i := 1; i < len(s.accs); i++ {
			out = append(out, s.app.BankKeeper.GetAllBalances(s.ctx, s.accs[i].Address))
		}
		return out
	}
	r := rand.New(rand.NewSource(7))
	for step := range 40 {
		start := balances()
		gpu := gpus[r.Intn(len(gpus))]
		attacker := 1 + r.Intn(4)
		fee := sdk.NewInt64Coin(chaincfg.USDCDenom, int64(100_000+r.Intn(3)))
		if res, err := s.msgServer.RequestAudit(s.ctx, &types.MsgRequestAudit{Requester: s.operator(attacker), GpuUuid: gpu, Fee: fee}); err == nil {
			garbage := make([]byte, 32)
			garbage[0] = byte(step)
			_, aerr := s.msgServer.AnswerAudit(s.ctx, &types.MsgAnswerAudit{Signer: s.operator(attacker), AuditId: res.AuditId, Root: garbage})
			s.Require().ErrorIs(aerr, types.ErrUnauthorized)
			s.passAudit(res.AuditId) // the honest agent
			_, perr := s.msgServer.ProveAudit(s.ctx, &types.MsgProveAudit{Signer: s.operator(attacker), AuditId: res.AuditId,
				Openings: []types.AuditOpening{{State: garbage}}})
			s.Require().Error(perr)
			after := balances()
			s.Require().Equal(start[attacker-1].AmountOf(chaincfg.USDCDenom).Sub(fee.Amount), after[attacker-1].AmountOf(chaincfg.USDCDenom),
				"the attacker paid exactly its fee")
		}
		s.Require().Equal(stake, s.providerState(0).Stake, "step %d", step)
		s.Require().Equal(providertypes.PROVIDER_STATUS_ACTIVE, s.providerState(0).Status, "step %d", step)
		s.until(s.ctx.BlockTime().Add(time.Duration(r.Intn(30)+1) * time.Hour))
	}
	s.Require().True(s.rewards(0).AmountOf(chaincfg.USDCDenom).GT(sdkmath.ZeroInt()), "the provider was paid for its time")
}

// TestPassFollowsTheProvider: a pass counts only for the provider that
// earned it; a UUID someone else registers after its owner let it go
// starts without one, and re-registering never resets a GPU's misses.
func (s *KeeperTestSuite) TestPassFollowsTheProvider() {
	s.devChain()
	gpu := s.simProvider(0, 1)[0]
	s.passAudit(s.requestRequired(gpu))
	s.Require().True(s.verification(gpu).Verified)
	_, err := providerkeeper.NewMsgServerImpl(s.app.ProviderKeeper).DeregisterGPU(s.ctx,
		&providertypes.MsgDeregisterGPU{Signer: s.operator(0), Provider: s.operator(0), Uuid: gpu})
	s.Require().NoError(err)

	m := s.fixture()
	m.RegisterProvider(s.operator(1), "taker", "eu-de", s.operator(agent))
	g := apptesting.GPU(1, h100, apptesting.H100MemoryMib) // the same UUID
	g.Simulated = true
	s.Require().Equal(gpu, m.RegisterUnverifiedGPUs(s.operator(1), []providertypes.GPUInfo{g})[0])
	m.Bond(s.operator(1), m.RequiredStake(1))
	s.Require().False(s.verification(gpu).Verified, "the pass was provider 0's")
	_, err = s.createOffer(1, []string{gpu})
	s.Require().ErrorIs(err, offertypes.ErrGPUHeld)
	_, err = s.msgServer.RequestAudit(s.ctx, &types.MsgRequestAudit{Requester: s.operator(3), GpuUuid: gpu, Fee: sdk.NewInt64Coin(chaincfg.USDCDenom, 100_000)})
	s.Require().ErrorIs(err, types.ErrNotAuditable, "no pass to check for a fee")
	s.passAudit(s.requestRequired(gpu))
	_, err = s.createOffer(1, []string{gpu})
	s.Require().NoError(err, "its own pass")
}
