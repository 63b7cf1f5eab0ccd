package keeper_test

import (
	"time"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

func (s *KeeperTestSuite) TestRegisterGPUs() {
	testCases := []struct {
		name   string
		setup  func()
		msg    func() *types.MsgRegisterGPUs
		expErr error
	}{
		{name: "operator registers two", msg: func() *types.MsgRegisterGPUs {
			return &types.MsgRegisterGPUs{Signer: s.operator(0), Provider: s.operator(0), Gpus: gpus(0, 2)}
		}},
		{name: "an agent registers for its provider", msg: func() *types.MsgRegisterGPUs {
			return &types.MsgRegisterGPUs{Signer: s.operator(1), Provider: s.operator(0), Gpus: gpus(0, 2)}
		}},
		{name: "a stranger may not", msg: func() *types.MsgRegisterGPUs {
			return &types.MsgRegisterGPUs{Signer: s.operator(2), Provider: s.operator(0), Gpus: gpus(0, 2)}
		}, expErr: types.ErrUnauthorized},
		{name: "unknown provider", msg: func() *types.MsgRegisterGPUs {
			return &types.MsgRegisterGPUs{Signer: s.operator(3), Provider: s.operator(3), Gpus: gpus(0, 1)}
		}, expErr: types.ErrProviderNotFound},
		{name: "no GPUs", msg: func() *types.MsgRegisterGPUs {
			return &types.MsgRegisterGPUs{Signer: s.operator(0), Provider: s.operator(0)}
		}, expErr: types.ErrTooManyGPUs},
		{name: "malformed UUID", msg: func() *types.MsgRegisterGPUs {
			g := gpu(0)
			g.Uuid = "GPU-ABCDEF01-1111-2222-3333-444455556666"
			return &types.MsgRegisterGPUs{Signer: s.operator(0), Provider: s.operator(0), Gpus: []types.GPUInfo{g}}
		}, expErr: types.ErrInvalidGPUUUID},
		{name: "MIG UUID", msg: func() *types.MsgRegisterGPUs {
			g := gpu(0)
			g.Uuid = "MIG-00000000-1111-2222-3333-444455556666"
			return &types.MsgRegisterGPUs{Signer: s.operator(0), Provider: s.operator(0), Gpus: []types.GPUInfo{g}}
		}, expErr: types.ErrInvalidGPUUUID},
		{name: "memory 0", msg: func() *types.MsgRegisterGPUs {
			g := gpu(0)
			g.MemoryMib = 0
			return &types.MsgRegisterGPUs{Signer: s.operator(0), Provider: s.operator(0), Gpus: []types.GPUInfo{g}}
		}, expErr: types.ErrInvalidGPU},
		{name: "bad PCI bus id", msg: func() *types.MsgRegisterGPUs {
			g := gpu(0)
			g.PciBusId = "3b:00.0"
			return &types.MsgRegisterGPUs{Signer: s.operator(0), Provider: s.operator(0), Gpus: []types.GPUInfo{g}}
		}, expErr: types.ErrInvalidGPU},
		{name: "no model", msg: func() *types.MsgRegisterGPUs {
			g := gpu(0)
			g.Model = ""
			return &types.MsgRegisterGPUs{Signer: s.operator(0), Provider: s.operator(0), Gpus: []types.GPUInfo{g}}
		}, expErr: types.ErrInvalidGPU},
		{name: "the same UUID twice", msg: func() *types.MsgRegisterGPUs {
			return &types.MsgRegisterGPUs{Signer: s.operator(0), Provider: s.operator(0), Gpus: []types.GPUInfo{gpu(7), gpu(8), gpu(7)}}
		}, expErr: types.ErrDuplicateGPU},
		{name: "already this provider's", setup: func() { s.registerGPUs(0, 0, 1) }, msg: func() *types.MsgRegisterGPUs {
			return &types.MsgRegisterGPUs{Signer: s.operator(0), Provider: s.operator(0), Gpus: gpus(0, 2)}
		}, expErr: types.ErrGPUAlreadyRegistered},
		{name: "already another provider's", setup: func() { s.register(4); s.registerGPUs(4, 1, 1) }, msg: func() *types.MsgRegisterGPUs {
			return &types.MsgRegisterGPUs{Signer: s.operator(0), Provider: s.operator(0), Gpus: gpus(0, 2)}
		}, expErr: types.ErrGPUAlreadyRegistered},
		{name: "more than max_gpus_per_msg", setup: func() { s.setParams(func(p *types.Params) { p.MaxGpusPerMsg = 3 }) }, msg: func() *types.MsgRegisterGPUs {
			return &types.MsgRegisterGPUs{Signer: s.operator(0), Provider: s.operator(0), Gpus: gpus(0, 4)}
		}, expErr: types.ErrTooManyGPUs},
		{name: "more than max_gpus_per_provider", setup: func() {
			s.setParams(func(p *types.Params) { p.MaxGpusPerProvider = 3 })
			s.registerGPUs(0, 10, 2)
		}, msg: func() *types.MsgRegisterGPUs {
			return &types.MsgRegisterGPUs{Signer: s.operator(0), Provider: s.operator(0), Gpus: gpus(0, 2)}
		}, expErr: types.ErrTooManyGPUs},
		{name: "tombstoned", setup: func() { s.Require().NoError(s.keeper.Tombstone(s.ctx, s.accs[0].Address)) }, msg: func() *types.MsgRegisterGPUs {
			return &types.MsgRegisterGPUs{Signer: s.operator(0), Provider: s.operator(0), Gpus: gpus(0, 1)}
		}, expErr: types.ErrTombstoned},
	}
	for _, tc := range testCases {
		s.Run(tc.name, func() {
			s.SetupTest()
			s.register(0, s.operator(1))
			if tc.setup != nil {
				tc.setup()
			}
			msg := tc.msg()
			before := s.snapshot()

			res, err := s.msgServer.RegisterGPUs(s.ctx, msg)

			if tc.expErr != nil {
				s.Require().ErrorIs(err, tc.expErr)
				s.Require().Equal(before, s.snapshot(), "a rejected message changes nothing")
				return
			}
			s.Require().NoError(err)
			s.Require().Equal([]string{msg.Gpus[0].Fingerprint(), msg.Gpus[1].Fingerprint()}, res.Fingerprints)
			s.Require().EqualValues(2, s.provider(0).GpuCount)
			owned, err := s.keeper.GPUs(s.ctx, s.accs[0].Address)
			s.Require().NoError(err)
			s.Require().Equal([]types.GPU{
				registered(msg.Gpus[0], s.operator(0), s.ctx), registered(msg.Gpus[1], s.operator(0), s.ctx),
			}, owned)
			g, err := s.keeper.GPU(s.ctx, msg.Gpus[1].Uuid)
			s.Require().NoError(err)
			s.Require().Equal(s.operator(0), g.Provider)
			s.requireEvent(&types.EventGPUsRegistered{Provider: msg.Provider, Signer: msg.Signer, Uuids: []string{msg.Gpus[0].Uuid, msg.Gpus[1].Uuid}})
		})
	}
}

func (s *KeeperTestSuite) TestDeregisterGPU() {
	setup := func() []string {
		s.SetupTest()
		s.register(0, s.operator(1))
		s.register(2)
		s.bond(0, 300_000_000)
		s.registerGPUs(2, 100, 1)
		return s.registerGPUs(0, 0, 3)
	}
	s.Run("an agent unbinds a free GPU", func() {
		uuids := setup()
		_, err := s.msgServer.DeregisterGPU(s.ctx, &types.MsgDeregisterGPU{Signer: s.operator(1), Provider: s.operator(0), Uuid: uuids[1]})
		s.Require().NoError(err)
		owned, err := s.keeper.GPUs(s.ctx, s.accs[0].Address)
		s.Require().NoError(err)
		s.Require().Len(owned, 2)
		s.Require().Equal([]string{uuids[0], uuids[2]}, []string{owned[0].Uuid, owned[1].Uuid})
		s.Require().EqualValues(2, s.provider(0).GpuCount)
		_, err = s.keeper.GPU(s.ctx, uuids[1])
		s.Require().ErrorIs(err, types.ErrGPUNotFound)
		s.requireEvent(&types.EventGPUDeregistered{Provider: s.operator(0), Uuid: uuids[1]})

		// The freed UUID can be registered again, by anyone.
		_, err = s.msgServer.RegisterGPUs(s.ctx, &types.MsgRegisterGPUs{Signer: s.operator(2), Provider: s.operator(2), Gpus: []types.GPUInfo{gpu(1)}})
		s.Require().NoError(err)
	})
	for _, tc := range []struct {
		name   string
		setup  func(uuids []string)
		msg    func(uuids []string) *types.MsgDeregisterGPU
		expErr error
	}{
		{"a committed GPU stays", func(u []string) { s.Require().NoError(s.keeper.CommitGPUs(s.ctx, s.accs[0].Address, u[:1])) },
			func(u []string) *types.MsgDeregisterGPU {
				return &types.MsgDeregisterGPU{Signer: s.operator(0), Provider: s.operator(0), Uuid: u[0]}
			}, types.ErrGPUCommitted},
		{"another provider's GPU", nil, func([]string) *types.MsgDeregisterGPU {
			return &types.MsgDeregisterGPU{Signer: s.operator(0), Provider: s.operator(0), Uuid: gpu(100).Uuid}
		}, types.ErrGPUNotFound},
		{"an unknown GPU", nil, func([]string) *types.MsgDeregisterGPU {
			return &types.MsgDeregisterGPU{Signer: s.operator(0), Provider: s.operator(0), Uuid: gpu(55).Uuid}
		}, types.ErrGPUNotFound},
		{"a stranger", nil, func(u []string) *types.MsgDeregisterGPU {
			return &types.MsgDeregisterGPU{Signer: s.operator(3), Provider: s.operator(0), Uuid: u[0]}
		}, types.ErrUnauthorized},
		{"a malformed UUID", nil, func([]string) *types.MsgDeregisterGPU {
			return &types.MsgDeregisterGPU{Signer: s.operator(0), Provider: s.operator(0), Uuid: "GPU-1"}
		}, types.ErrInvalidGPUUUID},
		{"a tombstoned provider keeps its GPUs bound", func([]string) { s.Require().NoError(s.keeper.Tombstone(s.ctx, s.accs[0].Address)) },
			func(u []string) *types.MsgDeregisterGPU {
				return &types.MsgDeregisterGPU{Signer: s.operator(0), Provider: s.operator(0), Uuid: u[0]}
			}, types.ErrTombstoned},
	} {
		s.Run(tc.name, func() {
			uuids := setup()
			if tc.setup != nil {
				tc.setup(uuids)
			}
			before := s.snapshot()
			_, err := s.msgServer.DeregisterGPU(s.ctx, tc.msg(uuids))
			s.Require().ErrorIs(err, tc.expErr)
			s.Require().Equal(before, s.snapshot())
		})
	}
}

func registered(info types.GPUInfo, provider string, ctx interface{ BlockTime() time.Time }) types.GPU {
	return types.GPU{
		Uuid: info.Uuid, Provider: provider, Model: info.Model, MemoryMib: info.MemoryMib, PciBusId: info.PciBusId,
		DriverVersion: info.DriverVersion, VbiosVersion: info.VbiosVersion, Fingerprint: info.Fingerprint(),
		RegisteredAt: ctx.BlockTime(),
	}
}
