package keeper_test

import (
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/x/provider/keeper"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// missEpochs records n missed epochs for provider i and returns the
// reliability the EMA gives from start.
func (s *KeeperTestSuite) missEpochs(i, n int, start uint32) uint32 {
	s.T().Helper()
	want := start
	for range n {
		s.Require().NoError(s.keeper.RecordEpoch(s.ctx, s.accs[i].Address, false))
		want = keeper.NextReliability(want, 0)
	}
	s.Require().Equal(want, s.reliability(i))
	return want
}

func (s *KeeperTestSuite) reliability(i int) uint32 {
	s.T().Helper()
	r, err := s.keeper.Reliability(s.ctx, s.accs[i].Address)
	s.Require().NoError(err)
	return r
}

func (s *KeeperTestSuite) deregister(i int, uuid string) error {
	_, err := s.msgServer.DeregisterGPU(s.ctx, &types.MsgDeregisterGPU{Signer: s.operator(i), Provider: s.operator(i), Uuid: uuid})
	return err
}

func (s *KeeperTestSuite) registerInfos(i int, infos ...types.GPUInfo) error {
	_, err := s.msgServer.RegisterGPUs(s.ctx, &types.MsgRegisterGPUs{Signer: s.operator(i), Provider: s.operator(i), Gpus: infos})
	return err
}

// A jailed, unreliable provider cannot launder its GPUs through a fresh
// operator: the GPUs stay bound while it is jailed, and once they leave,
// whoever registers them starts no higher than the provider they left.
func (s *KeeperTestSuite) TestGPUHistoryFollowsTheGPU() {
	s.register(0)
	s.bond(0, 200_000_000)
	uuids := s.registerGPUs(0, 0, 2)
	bad := s.missEpochs(0, 70, types.DefaultInitialReliabilityBps)
	s.Require().EqualValues(3008, bad, "70 missed epochs from 9000 bps")
	until := s.ctx.BlockTime().Add(time.Hour)
	s.Require().NoError(s.keeper.Jail(s.ctx, s.accs[0].Address, until))

	// While jailed, even past jailed_until until it unjails, nothing leaves.
	for _, ctx := range []time.Time{s.ctx.BlockTime(), until.Add(time.Second)} {
		s.ctx = s.ctx.WithBlockTime(ctx)
		before := s.snapshot()
		s.Require().ErrorIs(s.deregister(0, uuids[0]), types.ErrStillJailed)
		s.Require().Equal(before, s.snapshot(), "a rejected message changes nothing")
	}

	_, err := s.msgServer.Unjail(s.ctx, &types.MsgUnjail{Operator: s.operator(0)})
	s.Require().NoError(err)
	s.Require().NoError(s.deregister(0, uuids[0]))
	s.Require().NoError(s.deregister(0, uuids[1]))
	res, err := s.queryServer.GPUHistory(s.ctx, &types.QueryGPUHistoryRequest{Uuid: uuids[0]})
	s.Require().NoError(err)
	s.Require().Equal(types.GPUHistory{Uuid: uuids[0], Provider: s.operator(0), ReliabilityBps: bad}, res.History)

	// A brand-new operator registering the GPU starts at the reliability
	// the GPU left with, not at initial_reliability_bps.
	s.register(1)
	s.Require().EqualValues(types.DefaultInitialReliabilityBps, s.reliability(1))
	s.Require().NoError(s.registerInfos(1, gpu(0)))
	s.Require().Equal(bad, s.reliability(1))
	_, err = s.queryServer.GPUHistory(s.ctx, &types.QueryGPUHistoryRequest{Uuid: uuids[0]})
	s.Require().Equal(codes.NotFound, status.Code(err), "registering spends the record")
	_, err = s.queryServer.GPUHistory(s.ctx, &types.QueryGPUHistoryRequest{Uuid: "GPU-1"})
	s.Require().Equal(codes.InvalidArgument, status.Code(err))
	_, err = s.queryServer.GPUHistory(s.ctx, nil)
	s.Require().Equal(codes.InvalidArgument, status.Code(err))

	// A provider with GPUs of its own is lowered to it too.
	s.register(2)
	s.registerGPUs(2, 10, 1)
	s.Require().NoError(s.registerInfos(2, gpu(1)))
	s.Require().Equal(bad, s.reliability(2))
}

// Several GPUs with different histories in one registration: the provider
// takes the lowest of them (and of its own).
func (s *KeeperTestSuite) TestGPUHistoryTakesTheLowest() {
	s.register(0)
	s.register(1)
	s.registerGPUs(0, 0, 1)
	s.registerGPUs(1, 1, 1)
	r0 := s.missEpochs(0, 10, types.DefaultInitialReliabilityBps)
	r1 := s.missEpochs(1, 30, types.DefaultInitialReliabilityBps)
	s.Require().Equal([2]uint32{7692, 5621}, [2]uint32{r0, r1})
	s.Require().NoError(s.deregister(0, gpu(0).Uuid))
	s.Require().NoError(s.deregister(1, gpu(1).Uuid))

	s.register(2)
	s.Require().NoError(s.registerInfos(2, gpu(0), gpu(1), gpu(2)))
	s.Require().Equal(r1, s.reliability(2))

	// Registered again, a GPU's record is spent: the next registration
	// of it after this provider looks at this provider's reliability.
	s.Require().NoError(s.keeper.RecordEpoch(s.ctx, s.accs[2].Address, true))
	r2 := keeper.NextReliability(r1, 10_000)
	s.Require().NoError(s.deregister(2, gpu(0).Uuid))
	s.register(3)
	s.Require().NoError(s.registerInfos(3, gpu(0)))
	s.Require().Equal(r2, s.reliability(3))
}

// An honest provider that moves its own GPU (deregisters, re-registers)
// is not lowered to the reliability it had when the GPU left: its record
// since then is its own.
func (s *KeeperTestSuite) TestGPUHistoryOwnGPUComesBackFree() {
	s.register(0)
	s.registerGPUs(0, 0, 2)
	low := s.missEpochs(0, 5, types.DefaultInitialReliabilityBps)
	s.Require().NoError(s.deregister(0, gpu(0).Uuid))
	for range 3 {
		s.Require().NoError(s.keeper.RecordEpoch(s.ctx, s.accs[0].Address, true))
	}
	now := s.reliability(0)
	s.Require().Greater(now, low)
	s.Require().NoError(s.registerInfos(0, gpu(0)))
	s.Require().Equal(now, s.reliability(0))
}
