package keeper_test

import (
	"time"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// lyingProof builds epoch k's proof of l from samples in which one GPU's
// job process vanished for one sample, but claims procs_min 1: the root
// commits to the truth, the summary lies. It returns the proof and the
// sorted samples the agent would serve.
func (s *KeeperTestSuite) lyingProof(l auctiontypes.Lease, k uint64) (types.ExecutionProof, []types.Sample) {
	s.T().Helper()
	honest := s.proof(l, k, 400)
	from, to := honest.WindowStart, honest.WindowEnd
	var samples []types.Sample
	for _, u := range l.GpuUuids {
		for i, t := 0, from; !t.After(to); i, t = i+1, t.Add(5*time.Second) {
			procs := uint32(1)
			if u == l.GpuUuids[0] && i == 7 {
				procs = 0 // the job was not running
			}
			samples = append(samples, types.Sample{
				GpuUuid: u, TimestampMs: t.UnixMilli(), UtilBps: 9500, MemUsedMib: 70_000,
				EnergyMj: uint64(i) * 2_000_000, PowerMw: 400_000, TempC: 65, SmClockMhz: 1980, Procs: procs,
			})
		}
	}
	p, sorted, err := types.BuildProof(types.ProofInput{
		LeaseID: l.Id, Epoch: k, WindowStart: from, WindowEnd: to, ChallengeHeight: honest.ChallengeHeight,
		ChallengeHash: honest.ChallengeHash, GPUs: l.GpuUuids, Samples: samples, ImageDigest: digest,
	})
	s.Require().NoError(err)
	s.Require().Zero(p.Gpus[0].ProcsMin)
	p.Gpus[0].ProcsMin = 1 // the lie
	return p, sorted
}

// pathTo returns the index and audit path of the first sample matching f.
func (s *KeeperTestSuite) pathTo(samples []types.Sample, f func(types.Sample) bool) (types.Sample, uint64, [][]byte) {
	s.T().Helper()
	leaves, err := types.SampleLeaves(samples)
	s.Require().NoError(err)
	for i, smp := range samples {
		if f(smp) {
			path, err := types.MerklePath(leaves, i)
			s.Require().NoError(err)
			return smp, uint64(i), path
		}
	}
	s.FailNow("no such sample")
	return types.Sample{}, 0, nil
}

// TestFraudReport: a sample under the stored root that contradicts the
// summary slashes and tombstones the provider, pays the reporter its share,
// ends the provider's live leases with the renters refunded, and cannot be
// judged twice; a consistent sample or a bad path changes nothing.
func (s *KeeperTestSuite) TestFraudReport() {
	s.provider(0, 2, 3_600_000)
	l := s.lease(3, 1, 1800*time.Second, 4_000_000)
	other := s.lease(4, 1, 1800*time.Second, 4_000_000) // the provider's second lease
	_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 0)
	s.until(to)
	lie, samples := s.lyingProof(l, 0)
	_, err := s.submit(agent, 0, lie)
	s.Require().NoError(err, "the chain cannot see the lie from the summary alone")

	stake := s.providerState(0).Stake.Amount
	pparams, err := s.app.ProviderKeeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	reporterBefore := s.app.BankKeeper.GetBalance(s.ctx, s.accs[3].Address, pparams.StakeDenom()).Amount
	renter4Before := s.usdc(s.accs[4].Address)
	report := func(smp types.Sample, idx uint64, path [][]byte) (*types.MsgReportFraudResponse, error) {
		return s.msgServer.ReportFraud(s.ctx, &types.MsgReportFraud{
			Reporter: s.operator(3), LeaseId: l.Id, Epoch: 0, Sample: smp, LeafIndex: idx, Path: path,
		})
	}

	// A consistent sample: rejected, nobody slashed.
	good, gi, gp := s.pathTo(samples, func(x types.Sample) bool { return x.Procs == 1 })
	_, err = report(good, gi, gp)
	s.Require().ErrorIs(err, types.ErrNoContradiction)
	// The contradicting sample with a wrong index or a forged sample: rejected.
	bad, bi, bp := s.pathTo(samples, func(x types.Sample) bool { return x.Procs == 0 })
	_, err = report(bad, bi+1, bp)
	s.Require().ErrorIs(err, types.ErrInvalidMerkleProof)
	forged := good
	forged.Procs = 0
	_, err = report(forged, gi, gp)
	s.Require().ErrorIs(err, types.ErrInvalidMerkleProof, "a sample the agent never committed to")
	s.Require().Equal(stake, s.providerState(0).Stake.Amount)
	s.Require().Equal(providertypes.PROVIDER_STATUS_ACTIVE, s.providerState(0).Status)

	res, err := report(bad, bi, bp)
	s.Require().NoError(err)
	// The penalty is burned in full; the reporter's share is taken on top.
	penalty := stake.MulRaw(int64(pparams.SlashFraudBps)).QuoRaw(10_000)
	share := penalty.MulRaw(int64(pparams.FraudReporterShareBps)).QuoRaw(10_000)
	s.Require().Equal(penalty.Add(share), res.Slashed.Amount)
	s.Require().EqualValues(2, res.LeasesFailed)
	p := s.providerState(0)
	s.Require().Equal(providertypes.PROVIDER_STATUS_TOMBSTONED, p.Status)
	s.Require().Equal(stake.Sub(penalty).Sub(share), p.Stake.Amount)
	s.Require().Equal(reporterBefore.Add(share), s.app.BankKeeper.GetBalance(s.ctx, s.accs[3].Address, pparams.StakeDenom()).Amount)
	for _, id := range []uint64{l.Id, other.Id} {
		s.Require().Equal(auctiontypes.LEASE_STATUS_SLASHED, s.getLease(id).Status)
	}
	s.Require().Equal(renter4Before.Add(s.getLease(other.Id).Escrow.Amount), s.usdc(s.accs[4].Address), "the other lease's renter gets its whole escrow back")
	s.Require().True(s.progress(l.Id).NextDue.IsZero())

	_, err = report(bad, bi, bp)
	s.Require().ErrorIs(err, types.ErrProofNotFound, "judged once")
}
