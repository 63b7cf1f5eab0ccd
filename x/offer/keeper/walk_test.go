package keeper_test

import (
	"strings"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/offer/types"
)

// walk runs WalkCandidates and returns the offer ids visited, in order.
func (s *KeeperTestSuite) walk(q types.CandidateQuery) ([]uint64, uint32) {
	s.T().Helper()
	if q.MaxScan == 0 {
		q.MaxScan = 1000
	}
	var ids []uint64
	scanned, err := s.keeper.WalkCandidates(s.ctx, q, func(c types.Candidate) (bool, error) {
		ids = append(ids, c.Offer.Id)
		p, ok := c.Offer.Terms.Price(q.Lane)
		s.Require().True(ok)
		s.Require().Equal(p, c.Price)
		s.Require().Equal(c.Offer.FreeGPUs(), c.FreeGPUs)
		return false, nil
	})
	s.Require().NoError(err)
	return ids, scanned
}

// market builds offers over two models and two providers:
//
//	id 1  H100  p0  ondemand 3.0  preempt 1.5  eu-de-fra1  2 GPUs
//	id 2  H100  p0  ondemand 2.0  preempt 1.0  eu-de-fra1  1 GPU, INFERENCE only, allowlist sha256:abcd
//	id 3  H100  p1  ondemand 2.0  preempt 1.0  na-us       4 GPUs, window now+1h..now+3h
//	id 4  A100  p1  ondemand 1.0  preempt 0.5  na-us       2 GPUs, max duration 1h
//	id 5  H100  p1  ondemand 2.5 (uusdc) on-demand only, but priced in ugpu → other denom
func (s *KeeperTestSuite) market() []string {
	p0 := s.provide(0, h100, 81559, 0, 3, 3)
	p1 := s.provide(1, h100, 81559, 10, 5, 9)
	p1a := s.provide(1, l40s, 46068, 20, 2, 0)
	now := s.ctx.BlockTime()

	s.create(0, p0[:2], terms(3_000_000))
	t2 := terms(2_000_000)
	t2.Workloads = uint32(types.WORKLOAD_INFERENCE)
	t2.ImageAllowlist = []string{"sha256:abcd"}
	s.create(0, p0[2:], t2)
	t3 := terms(2_000_000)
	t3.Windows = []types.Window{window(now.Add(time.Hour), now.Add(3*time.Hour))}
	s.createIn(1, p1[:4], "na-us", t3)
	t4 := terms(1_000_000)
	t4.MaxDurationSeconds = 3600
	s.createIn(1, p1a, "na-us", t4)
	g := sdk.NewInt64Coin(chaincfg.BondDenom, 2_500_000)
	s.createIn(1, p1[4:], "na-us", types.OfferTerms{PriceOnDemand: &g, Lanes: uint32(types.LANE_ON_DEMAND), Workloads: types.AllWorkloads})
	return append(p0, p1...)
}

func (s *KeeperTestSuite) createIn(i int, uuids []string, region string, t types.OfferTerms) uint64 {
	s.T().Helper()
	res, err := s.msgServer.CreateOffer(s.ctx, &types.MsgCreateOffer{Signer: s.operator(i), Provider: s.operator(i), GpuUuids: uuids, Region: region, Terms: t})
	s.Require().NoError(err)
	return res.OfferId
}

func (s *KeeperTestSuite) TestWalkCandidatesCheapestFirstWithEveryFilter() {
	s.market()
	base := types.CandidateQuery{
		Lane: types.LANE_ON_DEMAND, MaxPrice: *usdc(10_000_000), Workload: types.WORKLOAD_INFERENCE,
		ImageDigest: "sha256:abcdef", GPUCount: 1, DurationSeconds: 1800,
	}
	with := func(edit func(*types.CandidateQuery)) types.CandidateQuery {
		q := base
		edit(&q)
		return q
	}
	for _, tc := range []struct {
		name string
		q    types.CandidateQuery
		want []uint64
	}{
		// Any model: the any-model index, by price then id. Offer 3's window
		// has not begun; offer 5 is priced in ugpu.
		{"any model", base, []uint64{4, 2, 1}},
		{"one model", with(func(q *types.CandidateQuery) { q.Models = []string{h100} }), []uint64{2, 1}},
		{"two models merged", with(func(q *types.CandidateQuery) { q.Models = []string{h100, l40s} }), []uint64{4, 2, 1}},
		{"unknown model", with(func(q *types.CandidateQuery) { q.Models = []string{"NVIDIA B200"} }), nil},
		{"max price is inclusive", with(func(q *types.CandidateQuery) { q.MaxPrice = *usdc(2_000_000) }), []uint64{4, 2}},
		{"below every price", with(func(q *types.CandidateQuery) { q.MaxPrice = *usdc(999_999) }), nil},
		{"preemptible lane prices", with(func(q *types.CandidateQuery) { q.Lane = types.LANE_PREEMPTIBLE; q.MaxPrice = *usdc(1_000_000) }), []uint64{4, 2}},
		{"other denom", with(func(q *types.CandidateQuery) { q.MaxPrice = sdk.NewInt64Coin(chaincfg.BondDenom, 5_000_000) }), []uint64{5}},
		{"memory", with(func(q *types.CandidateQuery) { q.MinMemoryMiB = 50_000 }), []uint64{2, 1}},
		{"region eu", with(func(q *types.CandidateQuery) { q.Regions = []string{"eu"} }), []uint64{2, 1}},
		{"region na-us or oc", with(func(q *types.CandidateQuery) { q.Regions = []string{"oc", "na-us"} }), []uint64{4}},
		{"workload", with(func(q *types.CandidateQuery) { q.Workload = types.WORKLOAD_TRAINING }), []uint64{4, 1}},
		{"image not allowed", with(func(q *types.CandidateQuery) { q.ImageDigest = "sha256:ffff" }), []uint64{4, 1}},
		{"longer than max duration", with(func(q *types.CandidateQuery) { q.DurationSeconds = 3601 }), []uint64{2, 1}},
		{"two GPUs", with(func(q *types.CandidateQuery) { q.GPUCount = 2 }), []uint64{4, 1}},
		{"two GPUs split", with(func(q *types.CandidateQuery) { q.GPUCount = 2; q.AllowSplit = true }), []uint64{4, 2, 1}},
	} {
		s.Run(tc.name, func() {
			got, _ := s.walk(tc.q)
			s.Require().Equal(tc.want, got)
		})
	}

	// Inside offer 3's window it fits; a job running past the window does not.
	s.advance(time.Hour)
	got, _ := s.walk(with(func(q *types.CandidateQuery) { q.Models = []string{h100}; q.GPUCount = 4 }))
	s.Require().Equal([]uint64{3}, got)
	got, _ = s.walk(with(func(q *types.CandidateQuery) {
		q.Models = []string{h100}
		q.GPUCount = 4
		q.DurationSeconds = 2*3600 + 1
	}))
	s.Require().Empty(got)
}

func (s *KeeperTestSuite) TestWalkCandidatesSkipsLeasedAndStopsEarly() {
	uuids := s.market()
	q := types.CandidateQuery{
		Lane: types.LANE_ON_DEMAND, Models: []string{h100}, MaxPrice: *usdc(10_000_000),
		Workload: types.WORKLOAD_INFERENCE, ImageDigest: "sha256:abcd", GPUCount: 1, DurationSeconds: 60, MaxScan: 1000,
	}
	got, scanned := s.walk(q)
	s.Require().Equal([]uint64{2, 1}, got)
	s.Require().Equal(uint32(3), scanned, "offers 2, 3 and 1 are in range (3 is at 2.0 after 2 by id; its window has not begun)")
	// Lease offer 2's only GPU: a full offer leaves the index, so it is not even scanned.
	s.Require().NoError(s.keeper.OccupyForLease(s.ctx, 2, uuids[2:3]))
	got, scanned = s.walk(q)
	s.Require().Equal([]uint64{1}, got)
	s.Require().Equal(uint32(2), scanned, "offers 3 and 1")
	// Freed, it is back in the index.
	s.Require().NoError(s.keeper.VacateGPUs(s.ctx, 2, uuids[2:3]))
	got, _ = s.walk(q)
	s.Require().Equal([]uint64{2, 1}, got)
	s.Require().NoError(s.keeper.OccupyForLease(s.ctx, 2, uuids[2:3]))

	// fn can stop the walk at the first fit.
	var first []uint64
	_, err := s.keeper.WalkCandidates(s.ctx, q, func(c types.Candidate) (bool, error) {
		first = append(first, c.Offer.Id)
		return true, nil
	})
	s.Require().NoError(err)
	s.Require().Equal([]uint64{1}, first)

	// MaxScan bounds the entries visited, fits or not.
	q.MaxScan = 1
	got, scanned = s.walk(q)
	s.Require().Empty(got)
	s.Require().Equal(uint32(1), scanned)
}

func (s *KeeperTestSuite) TestWalkCandidatesRejectsMalformedQueries() {
	ok := types.CandidateQuery{Lane: types.LANE_ON_DEMAND, MaxPrice: *usdc(1), Workload: types.WORKLOAD_BATCH, GPUCount: 1, MaxScan: 10}
	for name, edit := range map[string]func(*types.CandidateQuery){
		"no lane":          func(q *types.CandidateQuery) { q.Lane = types.LANE_UNSPECIFIED },
		"lane mask":        func(q *types.CandidateQuery) { q.Lane = 3 },
		"zero price":       func(q *types.CandidateQuery) { q.MaxPrice = *usdc(0) },
		"empty model":      func(q *types.CandidateQuery) { q.Models = []string{""} },
		"model twice":      func(q *types.CandidateQuery) { q.Models = []string{h100, h100} },
		"17 models":        func(q *types.CandidateQuery) { q.Models = make([]string, 17) },
		"bad region":       func(q *types.CandidateQuery) { q.Regions = []string{"mars"} },
		"no workload":      func(q *types.CandidateQuery) { q.Workload = types.WORKLOAD_UNSPECIFIED },
		"no GPUs":          func(q *types.CandidateQuery) { q.GPUCount = 0 },
		"no scan budget":   func(q *types.CandidateQuery) { q.MaxScan = 0 },
		"workload as mask": func(q *types.CandidateQuery) { q.Workload = 3 },
	} { //detlint:allow test cases are independent
		q := ok
		edit(&q)
		_, err := s.keeper.WalkCandidates(s.ctx, q, func(types.Candidate) (bool, error) { return false, nil })
		s.Require().ErrorIs(err, types.ErrInvalidQuery, name)
	}
}

// TestWalkCandidatesScansOnlyTheJobsContinents: a job bound to regions walks
// its continents' index ranges, so offers elsewhere are not even scanned; a
// query too wide for per-continent ranges walks every region and filters,
// with the same result.
func (s *KeeperTestSuite) TestWalkCandidatesScansOnlyTheJobsContinents() {
	s.market()
	q := types.CandidateQuery{
		Lane: types.LANE_ON_DEMAND, MaxPrice: *usdc(10_000_000), Workload: types.WORKLOAD_INFERENCE,
		ImageDigest: "sha256:abcdef", GPUCount: 1, DurationSeconds: 1800,
	}
	got, scanned := s.walk(q)
	s.Require().Equal([]uint64{4, 2, 1}, got)
	s.Require().Equal(uint32(4), scanned, "every uusdc offer: 4, 2, 3 (window not begun) and 1")

	q.Regions = []string{"eu-de"}
	got, scanned = s.walk(q)
	s.Require().Equal([]uint64{2, 1}, got)
	s.Require().Equal(uint32(2), scanned, "the na-us offers are not in the eu range")

	q.Regions = []string{"na", "eu-de-fra1"}
	got, scanned = s.walk(q)
	s.Require().Equal([]uint64{4, 2, 1}, got)
	s.Require().Equal(uint32(4), scanned, "two continents merged in price order")

	// 9 models × 2 continents > MaxWalkIterators: one every-region range per
	// model, the region filter does the rest.
	q.Models = []string{h100, l40s}
	for i := range 7 {
		q.Models = append(q.Models, "NVIDIA X"+string(rune('0'+i)))
	}
	q.Regions = []string{"eu", "oc"}
	s.Require().Equal([]string{""}, q.WalkContinents())
	got, scanned = s.walk(q)
	s.Require().Equal([]uint64{2, 1}, got)
	s.Require().Equal(uint32(4), scanned, "the na-us offers are scanned and filtered")
}

// The walk takes only offers that give the host resources per GPU a job
// requires and run its image; Fit (explicit bids) applies the same filter.
func (s *KeeperTestSuite) TestWalkCandidatesResourcesAndImagePrefixes() {
	p0 := s.provide(0, h100, 81559, 0, 2, 2)
	big := terms(2_000_000)
	big.CpuCoresPerGpu, big.MemoryMibPerGpu, big.DiskGibPerGpu = 16, 128*1024, 500
	big.ImagePrefixes = []string{"ghcr.io/acme", "docker.io/library/"}
	s.create(0, p0[:1], big)
	small := terms(3_000_000)
	small.CpuCoresPerGpu, small.MemoryMibPerGpu, small.DiskGibPerGpu = 4, 32*1024, 100
	s.create(0, p0[1:], small)

	base := types.CandidateQuery{
		Lane: types.LANE_ON_DEMAND, MaxPrice: *usdc(10_000_000), Workload: types.WORKLOAD_TRAINING,
		ImageDigest: "sha256:abcdef", Image: "ghcr.io/acme/train:v1", GPUCount: 1, DurationSeconds: 1800, MaxScan: 1000,
	}
	with := func(edit func(*types.CandidateQuery)) types.CandidateQuery {
		q := base
		edit(&q)
		return q
	}
	for _, tc := range []struct {
		name string
		q    types.CandidateQuery
		want []uint64
	}{
		{"no requirement", base, []uint64{1, 2}},
		{"cores within both", with(func(q *types.CandidateQuery) { q.MinCPUCoresPerGPU = 4 }), []uint64{1, 2}},
		{"cores beyond the small offer", with(func(q *types.CandidateQuery) { q.MinCPUCoresPerGPU = 5 }), []uint64{1}},
		{"memory beyond the small offer", with(func(q *types.CandidateQuery) { q.MinMemoryMiBPerGPU = 32*1024 + 1 }), []uint64{1}},
		{"disk beyond the small offer", with(func(q *types.CandidateQuery) { q.MinDiskGiBPerGPU = 101 }), []uint64{1}},
		{"beyond both", with(func(q *types.CandidateQuery) { q.MinDiskGiBPerGPU = 501 }), nil},
		{"image under a prefix at a path boundary", with(func(q *types.CandidateQuery) { q.Image = "ghcr.io/acme/x/y@sha256:abcdef" }), []uint64{1, 2}},
		{"image equal to the prefix", with(func(q *types.CandidateQuery) { q.Image = "ghcr.io/acme" }), []uint64{1, 2}},
		{"image under a prefix ending in /", with(func(q *types.CandidateQuery) { q.Image = "docker.io/library/ubuntu:24.04" }), []uint64{1, 2}},
		{"image sharing only characters with a prefix", with(func(q *types.CandidateQuery) { q.Image = "ghcr.io/acme-evil/x" }), []uint64{2}},
		{"image under no prefix", with(func(q *types.CandidateQuery) { q.Image = "quay.io/other/x" }), []uint64{2}},
	} {
		s.Run(tc.name, func() {
			got, _ := s.walk(tc.q)
			s.Require().Equal(tc.want, got)
		})
	}

	_, ok, err := s.keeper.Fit(s.ctx, 1, with(func(q *types.CandidateQuery) { q.Image = "quay.io/other/x" }))
	s.Require().NoError(err)
	s.Require().False(ok, "an explicit bid meets the same image rule")
	_, ok, err = s.keeper.Fit(s.ctx, 2, with(func(q *types.CandidateQuery) { q.MinCPUCoresPerGPU = 5 }))
	s.Require().NoError(err)
	s.Require().False(ok, "and the same resource rule")
	c, ok, err := s.keeper.Fit(s.ctx, 1, with(func(q *types.CandidateQuery) { q.MinCPUCoresPerGPU = 16 }))
	s.Require().NoError(err)
	s.Require().True(ok)
	s.Require().Equal(uint32(16), c.Offer.Terms.CpuCoresPerGpu, "the stored offer shows its resources")
	s.Require().Equal([]string{"ghcr.io/acme", "docker.io/library/"}, c.Offer.Terms.ImagePrefixes)
}

// A job that needs egress matches only offers that give at least that much
// per GPU; a job that needs none matches every offer, the no-network one
// included. Fit (explicit bids) applies the same rule.
func (s *KeeperTestSuite) TestWalkCandidatesEgress() {
	p0 := s.provide(0, h100, 81559, 0, 3, 3)
	none := terms(1_000_000) // offer 1: jobs get no network
	slow := terms(2_000_000) // offer 2: 100 Mbit/s per GPU
	slow.EgressMbpsPerGpu = 100
	fast := terms(3_000_000) // offer 3: the bound
	fast.EgressMbpsPerGpu = types.MaxEgressMbpsPerGPU
	s.create(0, p0[:1], none)
	s.create(0, p0[1:2], slow)
	s.create(0, p0[2:], fast)

	q := types.CandidateQuery{
		Lane: types.LANE_ON_DEMAND, MaxPrice: *usdc(10_000_000), Workload: types.WORKLOAD_TRAINING,
		ImageDigest: "sha256:abcdef", GPUCount: 1, DurationSeconds: 1800, MaxScan: 1000,
	}
	for _, tc := range []struct {
		name string
		min  uint32
		want []uint64
	}{
		{"needs none: every offer", 0, []uint64{1, 2, 3}},
		{"needs 1: not the no-network offer", 1, []uint64{2, 3}},
		{"needs exactly the slow offer's", 100, []uint64{2, 3}},
		{"needs one more than the slow offer's", 101, []uint64{3}},
		{"needs the bound", types.MaxEgressMbpsPerGPU, []uint64{3}},
		{"needs more than any offer may give", types.MaxEgressMbpsPerGPU + 1, nil},
	} {
		s.Run(tc.name, func() {
			q := q
			q.MinEgressMbpsPerGPU = tc.min
			got, scanned := s.walk(q)
			s.Require().Equal(tc.want, got)
			s.Require().Equal(uint32(3), scanned, "every offer is scanned and filtered")
		})
	}

	q.MinEgressMbpsPerGPU = 101
	_, ok, err := s.keeper.Fit(s.ctx, 2, q)
	s.Require().NoError(err)
	s.Require().False(ok, "an explicit bid meets the same egress rule")
	c, ok, err := s.keeper.Fit(s.ctx, 3, q)
	s.Require().NoError(err)
	s.Require().True(ok)
	s.Require().Equal(uint32(types.MaxEgressMbpsPerGPU), c.Offer.Terms.EgressMbpsPerGpu, "the stored offer shows its egress")
}

// A job that serves inbound traffic matches only offers with an ingress
// domain; a job with no service matches every offer. Fit (explicit bids)
// applies the same rule.
func (s *KeeperTestSuite) TestWalkCandidatesIngress() {
	p0 := s.provide(0, h100, 81559, 0, 2, 2)
	closed := terms(1_000_000) // offer 1: nothing reaches its jobs
	served := terms(2_000_000) // offer 2: lease-<id>.gpu.example.com
	served.IngressDomain, served.IngressTlsCertSha256 = "gpu.example.com", strings.Repeat("ab", 32)
	s.create(0, p0[:1], closed)
	s.create(0, p0[1:], served)

	q := types.CandidateQuery{
		Lane: types.LANE_ON_DEMAND, MaxPrice: *usdc(10_000_000), Workload: types.WORKLOAD_INFERENCE,
		ImageDigest: "sha256:abcdef", GPUCount: 1, DurationSeconds: 1800, MaxScan: 1000,
	}
	got, _ := s.walk(q)
	s.Require().Equal([]uint64{1, 2}, got, "no service: every offer")
	q.IngressPort = 8000
	got, scanned := s.walk(q)
	s.Require().Equal([]uint64{2}, got, "a service: only the offer with an ingress")
	s.Require().Equal(uint32(2), scanned)

	_, ok, err := s.keeper.Fit(s.ctx, 1, q)
	s.Require().NoError(err)
	s.Require().False(ok, "an explicit bid meets the same ingress rule")
	c, ok, err := s.keeper.Fit(s.ctx, 2, q)
	s.Require().NoError(err)
	s.Require().True(ok)
	s.Require().Equal("gpu.example.com", c.Offer.Terms.IngressDomain, "the stored offer shows its ingress")
	s.Require().Equal(strings.Repeat("ab", 32), c.Offer.Terms.IngressTlsCertSha256)
}
