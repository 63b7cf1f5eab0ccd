package keeper_test

import (
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cosmossdk.io/collections"
	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"

	auctionkeeper "github.com/idlegpu/idlegpu/x/auction/keeper"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// The suite's retention: an hour, 60 of its blocks.
const retention = 3600 * time.Second

func (s *KeeperTestSuite) setRetention(d time.Duration, perBlock uint32) {
	s.T().Helper()
	p, err := s.app.AuctionKeeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	p.RecordRetentionSeconds, p.MaxRecordPrunesPerBlock = uint64(d/time.Second), perBlock
	s.Require().NoError(p.Validate())
	s.Require().NoError(s.app.AuctionKeeper.Params.Set(s.ctx, p))
}

// storeBytes is the size of each prefix's keys and values in a module's
// store, keyed by the prefix's first byte.
func (s *KeeperTestSuite) storeBytes(storeKey string) map[byte]int {
	s.T().Helper()
	out := map[byte]int{}
	it := storetypes.KVStorePrefixIterator(s.ctx.KVStore(s.app.GetKey(storeKey)), nil)
	defer it.Close()
	for ; it.Valid(); it.Next() {
		out[it.Key()[0]] += len(it.Key()) + len(it.Value())
	}
	return out
}

// provenLease runs a 2-epoch lease of renter 3 to its end, epoch 0 proven
// with p0 and epoch 1 honestly; it returns the ended lease.
func (s *KeeperTestSuite) provenLease(p0 func(auctiontypes.Lease) types.ExecutionProof) auctiontypes.Lease {
	s.T().Helper()
	l := s.lease(3, 1, 1200*time.Second, 4_000_000)
	for k := uint64(0); k < 2; k++ {
		_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, k)
		s.until(to)
		p := s.proof(l, k, 400)
		if k == 0 {
			p = p0(l)
		}
		_, err := s.submit(agent, 0, p)
		s.Require().NoError(err)
	}
	s.until(s.progress(l.Id).NextDue)
	s.nextBlock()
	ended := s.getLease(l.Id)
	s.Require().Equal(auctiontypes.LEASE_STATUS_COMPLETED, ended.Status)
	return ended
}

// TestEndedLeaseLeavesState: a job that ran its lease to the end stays
// readable for record_retention_seconds after it ended, then its job, lease,
// index entries and progress leave state: x/auction's store is byte for
// byte what it was before the job was posted (its id sequences apart), and
// queries say the ids were pruned rather than never existed. The proofs
// stay for their own retention.
func (s *KeeperTestSuite) TestEndedLeaseLeavesState() {
	s.setRetention(retention, 10)
	s.provider(0, 1, 3_600_000)
	before := s.storeBytes(auctiontypes.StoreKey)

	l := s.provenLease(func(l auctiontypes.Lease) types.ExecutionProof { return s.proof(l, 0, 400) })
	job, err := s.app.AuctionKeeper.Job(s.ctx, l.JobId)
	s.Require().NoError(err)
	s.Require().Equal(auctiontypes.JOB_STATUS_COMPLETED, job.Status)
	endedAt := s.ctx.BlockTime().Add(-blockStep) // the EndBlock that ended it ran in the previous block
	s.Require().Equal(endedAt.Add(retention), job.PruneAt)
	during := s.storeBytes(auctiontypes.StoreKey)
	held := 0
	for p, n := range during {
		held += n - before[p]
	}
	s.T().Logf("an ended 1-GPU job and its lease hold %d bytes of x/auction state until pruned", held)

	s.until(job.PruneAt) // the block at prune_at, before its EndBlock
	s.Require().Equal(auctiontypes.LEASE_STATUS_COMPLETED, s.getLease(l.Id).Status, "kept through its retention")
	s.nextBlock()

	after := s.storeBytes(auctiontypes.StoreKey)
	for p, n := range after {
		if p == auctiontypes.JobSeqKey[0] || p == auctiontypes.LeaseSeqKey[0] || p == auctiontypes.BidSeqKey[0] {
			continue // the sequences now exist; their values are fixed-width
		}
		s.Require().Equal(before[p], n, "x/auction prefix %d: bytes before the job and after its pruning", p)
	}
	for p := range before {
		s.Require().Contains(after, p)
	}
	_, err = s.keeper.Progress.Get(s.ctx, l.Id)
	s.Require().Error(err, "the lease's progress left with it")
	for k := uint64(0); k < 2; k++ {
		ok, err := s.keeper.Proofs.Has(s.ctx, collections.Join(l.Id, k))
		s.Require().NoError(err)
		s.Require().True(ok, "proof %d stays for proof_retention", k)
	}

	q := auctionkeeper.NewQuerier(s.app.AuctionKeeper)
	_, err = q.Job(s.ctx, &auctiontypes.QueryJobRequest{Id: l.JobId})
	s.Require().Equal(codes.NotFound, status.Code(err))
	s.Require().Contains(err.Error(), "pruned")
	_, err = q.Lease(s.ctx, &auctiontypes.QueryLeaseRequest{Id: l.Id})
	s.Require().Equal(codes.NotFound, status.Code(err))
	s.Require().Contains(err.Error(), "pruned")
	_, err = q.Lease(s.ctx, &auctiontypes.QueryLeaseRequest{Id: l.Id + 1})
	s.Require().Equal(codes.NotFound, status.Code(err))
	s.Require().NotContains(err.Error(), "pruned", "an id never handed out was not pruned")
	res, err := q.ProviderLeases(s.ctx, &auctiontypes.QueryProviderLeasesRequest{Provider: s.operator(0)})
	s.Require().NoError(err)
	s.Require().Empty(res.Leases)
}

// TestFraudOutlivesThePrunedLease: a provider whose lie was not reported
// before its lease was pruned is still convicted: the report is judged on
// the stored proof, which names the provider and outlives the lease.
// Pruning is no way out of a fraud conviction.
func (s *KeeperTestSuite) TestFraudOutlivesThePrunedLease() {
	s.setRetention(retention, 10)
	s.provider(0, 1, 3_600_000)
	var samples []types.Sample
	l := s.provenLease(func(l auctiontypes.Lease) types.ExecutionProof {
		lie, sorted := s.lyingProof(l, 0)
		samples = sorted
		return lie
	})
	job, err := s.app.AuctionKeeper.Job(s.ctx, l.JobId)
	s.Require().NoError(err)
	s.until(job.PruneAt.Add(blockStep))
	_, err = s.app.AuctionKeeper.Lease(s.ctx, l.Id)
	s.Require().ErrorIs(err, auctiontypes.ErrLeaseNotFound)

	stake := s.providerState(0).Stake.Amount
	bad, bi, bp := s.pathTo(samples, func(x types.Sample) bool { return x.Procs == 0 })
	res, err := s.msgServer.ReportFraud(s.ctx, &types.MsgReportFraud{
		Reporter: s.operator(4), LeaseId: l.Id, Epoch: 0, Sample: bad, LeafIndex: bi, Path: bp,
	})
	s.Require().NoError(err)
	pparams, err := s.app.ProviderKeeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	penalty := stake.MulRaw(int64(pparams.SlashFraudBps)).QuoRaw(10_000)
	share := penalty.MulRaw(int64(pparams.FraudReporterShareBps)).QuoRaw(10_000)
	s.Require().Equal(penalty.Add(share), res.Slashed.Amount, "the same penalty as before the lease was pruned")
	s.Require().Zero(res.LeasesFailed, "nothing live to end")
	p := s.providerState(0)
	s.Require().Equal(providertypes.PROVIDER_STATUS_TOMBSTONED, p.Status)
	s.Require().Equal(stake.Sub(res.Slashed.Amount), p.Stake.Amount)
}

// TestPruningIsBoundedAndKeepsItsTime: expired and cancelled jobs are
// retired when they end; EndBlock prunes at most max_record_prunes_per_block
// of them, oldest first; a later, shorter retention does not bring forward
// the pruning of jobs that ended before it.
func (s *KeeperTestSuite) TestPruningIsBoundedAndKeepsItsTime() {
	s.setRetention(retention, 2)
	s.provider(0, 1, 3_600_000)
	var ids []uint64
	for i := 0; i < 4; i++ { // below every offer: EXPIRED at this block's clearing
		ids = append(ids, s.postJob(3, trainingJob(1, 600, 1_000)))
	}
	cancelled := s.postJob(4, trainingJob(1, 600, 1_000))
	_, err := s.auction.CancelJob(s.ctx, &auctiontypes.MsgCancelJob{Renter: s.operator(4), JobId: cancelled})
	s.Require().NoError(err)
	s.nextBlock()
	ended := s.ctx.BlockTime().Add(-blockStep)
	for _, id := range append(ids, cancelled) {
		j, err := s.app.AuctionKeeper.Job(s.ctx, id)
		s.Require().NoError(err)
		s.Require().Contains([]auctiontypes.JobStatus{auctiontypes.JOB_STATUS_EXPIRED, auctiontypes.JOB_STATUS_CANCELLED}, j.Status)
		s.Require().Equal(ended.Add(retention), j.PruneAt)
	}

	s.setRetention(time.Minute, 2) // applies to jobs that end from now on
	left := func() (n int) {
		for _, id := range append(ids, cancelled) {
			if ok, err := s.app.AuctionKeeper.Jobs.Has(s.ctx, id); s.NoError(err) && ok {
				n++
			}
		}
		return n
	}
	s.until(ended.Add(retention)) // the block at prune_at, before its EndBlock
	s.Require().Equal(5, left(), "nothing before prune_at")
	s.nextBlock()
	s.Require().Equal(3, left(), "two a block")
	has, err := s.app.AuctionKeeper.Jobs.Has(s.ctx, ids[2])
	s.Require().NoError(err)
	s.Require().True(has, "oldest (lowest id at the same time) first")
	s.nextBlock()
	s.Require().Equal(1, left())
	s.nextBlock()
	s.Require().Zero(left())
}
