package keeper_test

import (
	"github.com/idlegpu/idlegpu/x/offer/types"
)

// visit is what one walk saw: every candidate with its price and free
// GPUs, and the entries it counted.
type visit struct {
	cands   []types.Candidate
	scanned uint32
}

func (s *KeeperTestSuite) visitWith(walk func(types.CandidateQuery, func(types.Candidate) (bool, error)) (uint32, error), q types.CandidateQuery) visit {
	s.T().Helper()
	var v visit
	var err error
	v.scanned, err = walk(q, func(c types.Candidate) (bool, error) {
		v.cands = append(v.cands, c)
		return false, nil
	})
	s.Require().NoError(err)
	return v
}

// TestSharedWalksSeeWhatFreshWalksSee: a block's clearings share one
// Walks, whose ranges are read once and kept. Interleaved with the leases
// the clearings make (offers partly and fully occupied, leaving the
// index), with caps that grow and shrink and with merged models and
// continents, every shared walk visits exactly what a fresh iterator over
// the store visits: the same candidates, prices and free GPUs, in the
// same order, and the same count of entries.
func (s *KeeperTestSuite) TestSharedWalksSeeWhatFreshWalksSee() {
	s.market()
	walks := s.keeper.NewWalks()
	defer walks.Close()
	fresh := func(q types.CandidateQuery, fn func(types.Candidate) (bool, error)) (uint32, error) {
		return s.keeper.WalkCandidates(s.ctx, q, fn)
	}
	shared := func(q types.CandidateQuery, fn func(types.Candidate) (bool, error)) (uint32, error) {
		return walks.Walk(s.ctx, q, fn)
	}
	base := types.CandidateQuery{Lane: types.LANE_ON_DEMAND, MaxPrice: *usdc(10_000_000), Workload: types.WORKLOAD_TRAINING,
		ImageDigest: "sha256:abcdef", GPUCount: 1, DurationSeconds: 1800, MaxScan: 1000}
	shapes := []func(*types.CandidateQuery){
		func(q *types.CandidateQuery) { q.MaxPrice = *usdc(1_000_000) }, // a low cap first: the range is reopened later
		func(q *types.CandidateQuery) {},
		func(q *types.CandidateQuery) { q.Models = []string{h100} },
		func(q *types.CandidateQuery) { q.Models = []string{h100, l40s}; q.MaxPrice = *usdc(2_000_000) },
		func(q *types.CandidateQuery) { q.Regions = []string{"eu"} },
		func(q *types.CandidateQuery) { q.Regions = []string{"oc", "na-us"}; q.Models = []string{h100, l40s} },
		func(q *types.CandidateQuery) { q.Lane = types.LANE_PREEMPTIBLE; q.MaxPrice = *usdc(1_500_000) },
		func(q *types.CandidateQuery) { q.GPUCount = 2 },
		func(q *types.CandidateQuery) { q.GPUCount = 2; q.AllowSplit = true },
		func(q *types.CandidateQuery) { q.MaxScan = 1 },
		func(q *types.CandidateQuery) { q.Workload = types.WORKLOAD_INFERENCE; q.MaxPrice = *usdc(2_000_000) },
	}
	leased := 0
	for round := 0; round < 4; round++ {
		for i, shape := range shapes {
			q := base
			shape(&q)
			want := s.visitWith(fresh, q)
			got := s.visitWith(shared, q)
			s.Require().Equal(want, got, "round %d, shape %d", round, i)
			// The first candidate is leased, as a clearing would.
			if len(got.cands) == 0 {
				continue
			}
			c := got.cands[0]
			n := min(len(c.FreeGPUs), int(q.GPUCount))
			s.Require().NoError(walks.Occupy(s.ctx, c.Offer.Id, c.FreeGPUs[:n]))
			leased += n
		}
	}
	// Offers 1 (2 GPUs), 2 (1, inference only) and 4 (2), partly then
	// fully; 3's window has not begun and 5 is priced in another denom.
	s.Require().Equal(5, leased)
	for _, shape := range shapes {
		q := base
		shape(&q)
		s.Require().Empty(s.visitWith(fresh, q).cands, "the market is leased out")
	}
}
