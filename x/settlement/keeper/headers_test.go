package keeper_test

import (
	"time"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestHeaderRing: every block records its header; headers older than
// epoch + grace go, oldest first, at most max_prunes_per_block per block.
func (s *KeeperTestSuite) TestHeaderRing() {
	h, err := s.keeper.Headers.Get(s.ctx, s.ctx.BlockHeight())
	s.Require().NoError(err)
	s.Require().Equal(headerHash(s.ctx.BlockHeight()), h.Hash)
	s.Require().Equal(s.ctx.BlockTime(), h.Time)

	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	params.MaxPrunesPerBlock = 1
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	for range 5 {
		s.nextBlock()
	}
	// Jump past the retention of all six: one goes per block.
	s.ctx = s.ctx.WithBlockHeight(s.ctx.BlockHeight() + 1).WithBlockTime(s.ctx.BlockTime().Add(params.HeaderRetention() + time.Hour))
	count := func() int {
		n := 0
		s.Require().NoError(s.keeper.Headers.Walk(s.ctx, nil, func(int64, types.HeaderRecord) (bool, error) { n++; return false, nil }))
		return n
	}
	before := count()
	var heights []int64
	s.Require().NoError(s.keeper.Headers.Walk(s.ctx, nil, func(h int64, _ types.HeaderRecord) (bool, error) {
		heights = append(heights, h)
		return false, nil
	}))
	first := heights[0]
	s.beginBlock()
	s.Require().Equal(before, count(), "one added, one pruned")
	has, err := s.keeper.Headers.Has(s.ctx, first)
	s.Require().NoError(err)
	s.Require().False(has, "the oldest went first")
	has, err = s.keeper.Headers.Has(s.ctx, first+1)
	s.Require().NoError(err)
	s.Require().True(has)
}
