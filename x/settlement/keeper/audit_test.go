package keeper_test

import (
	"context"
	"crypto/sha256"
	"slices"
	"time"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/app/chaincfg"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"github.com/idlegpu/idlegpu/x/settlement/audit"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

const (
	// auditor is the account governance names as auditor.
	auditor = 2
	// auditUnits keeps the CPU reference fast in tests (≈ 25 ms).
	auditUnits = 2
)

var auditFee = sdk.NewInt64Coin(chaincfg.USDCDenom, 5_000_000)

// gpuUUID is the UUID the suite's provider helper gives its n-th GPU.
var gpuUUID = apptesting.GPUUUID

// allowAuditor makes account auditor the chain's one auditor.
func (s *KeeperTestSuite) allowAuditor() {
	s.T().Helper()
	p, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	p.Auditors = []string{s.operator(auditor)}
	s.Require().NoError(s.keeper.Params.Set(s.ctx, p))
}

// auditPlan is what an honest auditor prepares off chain: a seed, the
// reference result and a salted commitment to it.
type auditPlan struct {
	seed, salt, expected [32]byte
}

func (s *KeeperTestSuite) plan(tag byte) auditPlan {
	s.T().Helper()
	var p auditPlan
	p.seed = sha256.Sum256([]byte{'s', tag})
	p.salt = sha256.Sum256([]byte{'t', tag})
	exp, err := audit.MatMulV1{}.Run(context.Background(), p.seed[:], auditUnits)
	s.Require().NoError(err)
	p.expected = exp
	return p
}

// openMsg is a valid opening of an audit of gpu with the least deadline.
func (s *KeeperTestSuite) openMsg(p auditPlan, provider int, gpu string) *types.MsgOpenAudit {
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	m, _ := params.GPUModel(h100)
	c := audit.Commitment(p.salt, p.expected)
	return &types.MsgOpenAudit{
		Auditor: s.operator(auditor), Provider: s.operator(provider), GpuUuid: gpu, Workload: audit.MatMulV1Name,
		Seed: p.seed[:], WorkUnits: auditUnits, Commitment: c[:],
		Deadline: s.ctx.BlockTime().Add(params.LeastAuditTime(m, auditUnits)), Fee: auditFee,
	}
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

func (s *KeeperTestSuite) answer(id uint64, result []byte) error {
	_, err := s.msgServer.AnswerAudit(s.ctx, &types.MsgAnswerAudit{Signer: s.operator(agent), AuditId: id, Result: result})
	return err
}

func (s *KeeperTestSuite) reveal(id uint64, salt, expected []byte) (*types.MsgRevealAuditResponse, error) {
	return s.msgServer.RevealAudit(s.ctx, &types.MsgRevealAudit{Auditor: s.operator(auditor), AuditId: id, Salt: salt, Expected: expected})
}

func (s *KeeperTestSuite) moduleUSDC() sdkmath.Int {
	return s.usdc(s.app.AccountKeeper.GetModuleAddress(types.ModuleName))
}

// TestAuditHappyPath: the fee is escrowed and the GPU held out of the
// market while the provider computes; the provider's agent answers with the
// workload's real result, the GPU returns to the market, and the reveal pays
// the fee into the provider's rewards. The verdict is pruned after retention.
func (s *KeeperTestSuite) TestAuditHappyPath() {
	s.allowAuditor()
	s.provider(0, 2, 3_600_000)
	gpu := gpuUUID(1)
	p := s.plan(1)
	auditorBefore := s.usdc(s.accs[auditor].Address)

	res, err := s.msgServer.OpenAudit(s.ctx, s.openMsg(p, 0, gpu))
	s.Require().NoError(err)
	s.Require().EqualValues(1, res.AuditId)
	s.Require().Equal(auditorBefore.Sub(auditFee.Amount), s.usdc(s.accs[auditor].Address))
	s.Require().Equal(auditFee.Amount, s.moduleUSDC())
	s.Require().Equal([]string{gpu}, s.offerOf(gpu).OccupiedGpuUuids, "the audited GPU is held out of the market")
	a := s.getAudit(1)
	s.Require().Equal(types.AUDIT_STATUS_OPEN, a.Status)
	s.Require().Equal(s.offerOf(gpu).Id, a.ReservedOfferId)
	s.Require().Equal(h100, a.Model)

	// A 2-GPU job cannot take the held GPU.
	job := s.postJob(3, trainingJob(2, 1800, 4_000_000))
	s.nextBlock()
	j, err := s.app.AuctionKeeper.Job(s.ctx, job)
	s.Require().NoError(err)
	s.Require().NotEqual(auctiontypes.JOB_STATUS_MATCHED, j.Status)

	// The provider's agent runs the workload and answers in time.
	result, err := audit.MatMulV1{}.Run(context.Background(), a.Seed, a.WorkUnits)
	s.Require().NoError(err)
	s.Require().NoError(s.answer(1, result[:]))
	s.Require().Empty(s.offerOf(gpu).OccupiedGpuUuids, "answered: the GPU is back on the market")
	s.Require().Equal(types.AUDIT_STATUS_ANSWERED, s.getAudit(1).Status)
	s.Require().ErrorIs(s.answer(1, result[:]), types.ErrAuditState, "answered once")

	out, err := s.reveal(1, p.salt[:], p.expected[:])
	s.Require().NoError(err)
	s.Require().Equal(types.AUDIT_STATUS_CORRECT, out.Status)
	s.Require().True(out.Slashed.Amount.IsZero())
	s.Require().Equal(sdk.NewCoins(auditFee), s.rewards(0), "the fee is the provider's")
	s.Require().Equal(auditorBefore.Sub(auditFee.Amount), s.usdc(s.accs[auditor].Address))
	s.Require().Equal(providertypes.PROVIDER_STATUS_ACTIVE, s.providerState(0).Status)
	_, err = s.reveal(1, p.salt[:], p.expected[:])
	s.Require().ErrorIs(err, types.ErrAuditState, "judged once")

	list, err := s.queryServer.Audits(s.ctx, &types.QueryAuditsRequest{Provider: s.operator(0), Status: types.AUDIT_STATUS_CORRECT})
	s.Require().NoError(err)
	s.Require().Len(list.Audits, 1)
	list, err = s.queryServer.Audits(s.ctx, &types.QueryAuditsRequest{Status: types.AUDIT_STATUS_OPEN})
	s.Require().NoError(err)
	s.Require().Empty(list.Audits)

	// The verdict stays proof_retention epochs (shortened here), then goes.
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	a = s.getAudit(1)
	s.Require().Equal(a.ResolvedAt.Add(time.Duration(params.ProofRetention*params.EpochSeconds)*time.Second), a.PruneAt)
	s.Require().NoError(s.keeper.AuditQueue.Remove(s.ctx, joinQueue(a.PruneAt, 1)))
	a.PruneAt = s.ctx.BlockTime().Add(2 * blockStep)
	s.Require().NoError(s.keeper.Audits.Set(s.ctx, 1, a))
	s.Require().NoError(s.keeper.AuditQueue.Set(s.ctx, joinQueue(a.PruneAt, 1)))
	s.until(a.PruneAt.Add(time.Second))
	s.nextBlock()
	has, err := s.keeper.Audits.Has(s.ctx, 1)
	s.Require().NoError(err)
	s.Require().False(has)
}

// TestAuditWrongAnswer: an answer that is not the committed result is
// fraud: slash_fraud (the auditor gets the reporter's share), tombstone,
// every live lease of the provider SLASHED with the renter refunded, and
// the fee back to the auditor.
func (s *KeeperTestSuite) TestAuditWrongAnswer() {
	s.allowAuditor()
	s.provider(0, 2, 3_600_000)
	l := s.lease(3, 1, 1800*time.Second, 4_000_000)
	free := gpuUUID(1)
	if slices.Contains(l.GpuUuids, free) {
		free = gpuUUID(2)
	}
	p := s.plan(2)
	_, err := s.msgServer.OpenAudit(s.ctx, s.openMsg(p, 0, free))
	s.Require().NoError(err)

	pparams, err := s.app.ProviderKeeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	stake := s.providerState(0).Stake.Amount
	auditorUSDC := s.usdc(s.accs[auditor].Address)
	auditorStake := s.app.BankKeeper.GetBalance(s.ctx, s.accs[auditor].Address, pparams.StakeDenom()).Amount
	renterBefore := s.usdc(s.accs[3].Address)

	wrong := p.expected
	wrong[0] ^= 0xff // a slower, spoofed GPU's guess
	s.Require().NoError(s.answer(1, wrong[:]))
	out, err := s.reveal(1, p.salt[:], p.expected[:])
	s.Require().NoError(err)
	s.Require().Equal(types.AUDIT_STATUS_WRONG, out.Status)
	// The penalty is burned in full; the auditor's share is taken on top.
	penalty := stake.MulRaw(int64(pparams.SlashFraudBps)).QuoRaw(10_000)
	share := penalty.MulRaw(int64(pparams.FraudReporterShareBps)).QuoRaw(10_000)
	s.Require().Equal(penalty.Add(share), out.Slashed.Amount)
	pr := s.providerState(0)
	s.Require().Equal(providertypes.PROVIDER_STATUS_TOMBSTONED, pr.Status)
	s.Require().Equal(stake.Sub(penalty).Sub(share), pr.Stake.Amount)
	s.Require().Equal(auditorStake.Add(share), s.app.BankKeeper.GetBalance(s.ctx, s.accs[auditor].Address, pparams.StakeDenom()).Amount)
	s.Require().Equal(auditorUSDC.Add(auditFee.Amount), s.usdc(s.accs[auditor].Address), "the fee goes back")
	s.Require().Equal(auctiontypes.LEASE_STATUS_SLASHED, s.getLease(l.Id).Status)
	s.Require().Equal(renterBefore.Add(l.Escrow.Amount), s.usdc(s.accs[3].Address), "nothing of the lease was paid yet: all back")
	s.Require().True(s.rewards(0).IsZero())
	s.Require().True(s.moduleUSDC().IsZero())
}

// TestAuditTimeout: no answer by the deadline is fraud, judged in EndBlock;
// an answer one second late is refused.
func (s *KeeperTestSuite) TestAuditTimeout() {
	s.allowAuditor()
	// The test jumps the block time to the deadline without blocks in
	// between; that is no chain halt here (TestHaltMovesAuditDeadline).
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	params.HaltGapSeconds = 24 * 3600
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	s.provider(0, 1, 3_600_000)
	gpu := gpuUUID(1)
	msg := s.openMsg(s.plan(3), 0, gpu)
	_, err = s.msgServer.OpenAudit(s.ctx, msg)
	s.Require().NoError(err)
	pparams, err := s.app.ProviderKeeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	stake := s.providerState(0).Stake.Amount
	auditorUSDC := s.usdc(s.accs[auditor].Address)

	late := s.ctx
	s.ctx = s.ctx.WithBlockTime(msg.Deadline.Add(time.Second))
	s.Require().ErrorIs(s.answer(1, make([]byte, 32)), types.ErrAuditState)
	s.ctx = late.WithBlockTime(msg.Deadline)
	// The block at the deadline itself still takes an answer (its txs run
	// before its EndBlock); this one carries none, so its EndBlock times the
	// audit out: due at its time, like every queue.
	s.nextBlock()
	a := s.getAudit(1)
	s.Require().Equal(types.AUDIT_STATUS_TIMED_OUT, a.Status)
	s.Require().Zero(a.ReservedOfferId)
	s.Require().Equal(providertypes.PROVIDER_STATUS_TOMBSTONED, s.providerState(0).Status)
	penalty := stake.MulRaw(int64(pparams.SlashFraudBps)).QuoRaw(10_000)
	share := penalty.MulRaw(int64(pparams.FraudReporterShareBps)).QuoRaw(10_000) // to the auditor, on top
	s.Require().Equal(stake.Sub(penalty).Sub(share), s.providerState(0).Stake.Amount)
	s.Require().Equal(auditorUSDC.Add(auditFee.Amount), s.usdc(s.accs[auditor].Address))
	s.Require().NotContains(s.offerOf(gpu).OccupiedGpuUuids, gpu, "the hold ends with the verdict")
}

// TestAuditStepsHaveTheirOwnBound: max_audit_steps_per_block, not the
// liveness bound, limits the audit steps of one EndBlock; the rest wait
// for the next block, oldest first.
func (s *KeeperTestSuite) TestAuditStepsHaveTheirOwnBound() {
	s.allowAuditor()
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	params.HaltGapSeconds = 24 * 3600 // the time jump below is no halt
	params.MaxAuditStepsPerBlock = 1
	params.MaxMissesPerBlock = 100
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	s.provider(0, 1, 3_600_000) // gpu 1
	s.provider(1, 1, 3_600_000) // gpu 2
	first := s.openMsg(s.plan(5), 0, gpuUUID(1))
	_, err = s.msgServer.OpenAudit(s.ctx, first)
	s.Require().NoError(err)
	_, err = s.msgServer.OpenAudit(s.ctx, s.openMsg(s.plan(6), 1, gpuUUID(2)))
	s.Require().NoError(err)

	s.ctx = s.ctx.WithBlockTime(first.Deadline.Add(time.Second))
	s.nextBlock()
	s.Require().Equal(types.AUDIT_STATUS_TIMED_OUT, s.getAudit(1).Status)
	s.Require().Equal(types.AUDIT_STATUS_OPEN, s.getAudit(2).Status, "one step per block")
	s.nextBlock()
	s.Require().Equal(types.AUDIT_STATUS_TIMED_OUT, s.getAudit(2).Status)
}

// TestAuditAnsweredInTheDeadlineBlock: the boundary that protects an honest
// provider. An answer in the block whose time is the deadline is accepted,
// and that block's EndBlock, which times out every audit due at its time,
// leaves it ANSWERED; its reveal at exactly reveal_by is CORRECT.
func (s *KeeperTestSuite) TestAuditAnsweredInTheDeadlineBlock() {
	s.allowAuditor()
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	params.HaltGapSeconds = 24 * 3600 // the time jumps below are no halts
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	s.provider(0, 1, 3_600_000)
	p := s.plan(4)
	msg := s.openMsg(p, 0, gpuUUID(1))
	_, err = s.msgServer.OpenAudit(s.ctx, msg)
	s.Require().NoError(err)

	s.ctx = s.ctx.WithBlockTime(msg.Deadline)
	s.Require().NoError(s.answer(1, p.expected[:]))
	s.nextBlock()
	a := s.getAudit(1)
	s.Require().Equal(types.AUDIT_STATUS_ANSWERED, a.Status)

	s.ctx = s.ctx.WithBlockTime(a.RevealBy)
	_, err = s.reveal(1, p.salt[:], p.expected[:])
	s.Require().NoError(err)
	s.nextBlock()
	s.Require().Equal(types.AUDIT_STATUS_CORRECT, s.getAudit(1).Status)
	s.Require().Equal(providertypes.PROVIDER_STATUS_ACTIVE, s.providerState(0).Status)
}

// TestAuditBadReveal: a reveal that does not open the commitment costs the
// auditor its fee (paid to the provider) and slashes nobody; so does never
// revealing.
func (s *KeeperTestSuite) TestAuditBadReveal() {
	s.allowAuditor()
	s.provider(0, 2, 3_600_000)
	p := s.plan(4)
	_, err := s.msgServer.OpenAudit(s.ctx, s.openMsg(p, 0, gpuUUID(1)))
	s.Require().NoError(err)
	_, err = s.reveal(1, p.salt[:], p.expected[:])
	s.Require().ErrorIs(err, types.ErrAuditState, "no reveal before the answer: it would hand over the result")
	s.Require().NoError(s.answer(1, p.expected[:]))
	_, err = s.msgServer.RevealAudit(s.ctx, &types.MsgRevealAudit{Auditor: s.operator(3), AuditId: 1, Salt: p.salt[:], Expected: p.expected[:]})
	s.Require().ErrorIs(err, types.ErrUnauthorized)
	stake := s.providerState(0).Stake.Amount
	otherWrong := p.expected
	otherWrong[5]++
	out, err := s.reveal(1, p.salt[:], otherWrong[:]) // claims another result than committed
	s.Require().NoError(err)
	s.Require().Equal(types.AUDIT_STATUS_BAD_REVEAL, out.Status)
	s.Require().Equal(sdk.NewCoins(auditFee), s.rewards(0))
	s.Require().Equal(stake, s.providerState(0).Stake.Amount)
	s.Require().Equal(providertypes.PROVIDER_STATUS_ACTIVE, s.providerState(0).Status)

	// A second GPU after the first audit resolved; the auditor never reveals.
	msg := s.openMsg(s.plan(5), 0, gpuUUID(2))
	_, err = s.msgServer.OpenAudit(s.ctx, msg)
	s.Require().NoError(err)
	s.Require().NoError(s.answer(2, make([]byte, 32)))
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	s.until(msg.Deadline.Add(params.AuditReveal()).Add(time.Second))
	s.nextBlock()
	s.Require().Equal(types.AUDIT_STATUS_UNREVEALED, s.getAudit(2).Status)
	s.Require().Equal(sdk.NewCoins(auditFee.Add(auditFee)), s.rewards(0))
	s.Require().Equal(providertypes.PROVIDER_STATUS_ACTIVE, s.providerState(0).Status)
}

// TestAuditGuardrails: every refused opening, answer and reveal returns its
// typed error and moves nothing.
func (s *KeeperTestSuite) TestAuditGuardrails() {
	s.provider(0, 2, 3_600_000)
	s.provider(1, 1, 3_600_000)
	l := s.lease(3, 1, 1800*time.Second, 4_000_000)
	leased := l.GpuUuids[0]
	free := gpuUUID(1)
	if free == leased {
		free = gpuUUID(2)
	}
	p := s.plan(6)
	auditorBefore := s.usdc(s.accs[auditor].Address)
	open := func(f func(*types.MsgOpenAudit)) error {
		m := s.openMsg(p, 0, free)
		f(m)
		_, err := s.msgServer.OpenAudit(s.ctx, m)
		return err
	}
	s.Require().ErrorIs(open(func(*types.MsgOpenAudit) {}), types.ErrAuditorNotAllowed, "audits are off until governance names auditors")
	s.allowAuditor()
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	params.AuditCooldownSeconds = 300 // shorter than the lease's first epoch
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	for _, tc := range []struct {
		name string
		f    func(*types.MsgOpenAudit)
		err  error
	}{
		{"not an auditor", func(m *types.MsgOpenAudit) { m.Auditor = s.operator(3) }, types.ErrAuditorNotAllowed},
		{"unknown workload", func(m *types.MsgOpenAudit) { m.Workload = "idlegpu/sleep/v1" }, types.ErrInvalidAudit},
		{"short seed", func(m *types.MsgOpenAudit) { m.Seed = m.Seed[:31] }, types.ErrInvalidAudit},
		{"no work", func(m *types.MsgOpenAudit) { m.WorkUnits = 0 }, types.ErrInvalidAudit},
		{"short commitment", func(m *types.MsgOpenAudit) { m.Commitment = m.Commitment[:16] }, types.ErrInvalidAudit},
		{"no fee", func(m *types.MsgOpenAudit) { m.Fee = sdk.NewInt64Coin(chaincfg.USDCDenom, 0) }, types.ErrInvalidAudit},
		{"fee in a foreign denom", func(m *types.MsgOpenAudit) { m.Fee = sdk.NewInt64Coin("uatom", 5) }, types.ErrInvalidAudit},
		{"deadline a second too early", func(m *types.MsgOpenAudit) { m.Deadline = m.Deadline.Add(-time.Second) }, types.ErrAuditDeadline},
		{"deadline beyond audit_max", func(m *types.MsgOpenAudit) { m.Deadline = s.ctx.BlockTime().Add(params.AuditMax() + time.Second) }, types.ErrAuditDeadline},
		{"work no deadline can fit", func(m *types.MsgOpenAudit) {
			m.WorkUnits = 10_000_000
			m.Deadline = s.ctx.BlockTime().Add(params.AuditMax())
		}, types.ErrAuditDeadline},
		{"GPU in a lease", func(m *types.MsgOpenAudit) { m.GpuUuid = leased }, types.ErrNotAuditable},
		{"another provider's GPU", func(m *types.MsgOpenAudit) { m.GpuUuid = gpuUUID(3) }, types.ErrNotAuditable},
		{"unknown GPU", func(m *types.MsgOpenAudit) { m.GpuUuid = "GPU-none" }, providertypes.ErrGPUNotFound},
	} {
		s.Require().ErrorIs(open(tc.f), tc.err, tc.name)
	}
	s.Require().Equal(auditorBefore, s.usdc(s.accs[auditor].Address), "refusals move nothing")
	s.Require().True(s.moduleUSDC().IsZero())

	s.Require().NoError(open(func(*types.MsgOpenAudit) {}))
	s.Require().ElementsMatch([]string{leased, free}, s.offerOf(free).OccupiedGpuUuids, "the lease's GPU and the audited one are both out of the market")
	other := s.openMsg(p, 1, gpuUUID(3))
	_, err = s.msgServer.OpenAudit(s.ctx, other)
	s.Require().NoError(err, "another provider may be audited at the same time")
	s.Require().ErrorIs(open(func(*types.MsgOpenAudit) {}), types.ErrAuditPending, "one live audit per provider")
	_, err = s.msgServer.AnswerAudit(s.ctx, &types.MsgAnswerAudit{Signer: s.operator(3), AuditId: 1, Result: p.expected[:]})
	s.Require().ErrorIs(err, types.ErrUnauthorized)
	s.Require().ErrorIs(s.answer(1, p.expected[:31]), types.ErrInvalidAudit)
	s.Require().ErrorIs(s.answer(99, p.expected[:]), types.ErrAuditNotFound)
	s.Require().NoError(s.answer(1, p.expected[:]))
	_, err = s.reveal(1, p.salt[:], p.expected[:])
	s.Require().NoError(err)
	s.Require().ErrorIs(open(func(*types.MsgOpenAudit) {}), types.ErrAuditCooldown, "one audit per GPU per audit_cooldown")
	s.until(s.getAudit(1).OpenedAt.Add(params.AuditCooldown()))
	s.Require().NoError(open(func(*types.MsgOpenAudit) {}), "the cooldown is over")
	s.Require().Equal(types.AUDIT_STATUS_TIMED_OUT, s.getAudit(2).Status, "provider 1 never answered")
	s.Require().Equal(providertypes.PROVIDER_STATUS_TOMBSTONED, s.providerState(1).Status)
}

func joinQueue(t time.Time, id uint64) collections.Pair[time.Time, uint64] {
	return collections.Join(t, id)
}
