package keeper_test

import (
	"bytes"
	"strings"
	"time"

	"github.com/cosmos/gogoproto/proto"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

func (s *KeeperTestSuite) TestRegisterProvider() {
	valid := func() *types.MsgRegisterProvider {
		return &types.MsgRegisterProvider{
			Operator:      s.operator(0),
			Moniker:       "Fra1 H100 rack",
			Region:        "eu-de-fra1",
			Endpoint:      "https://gpu.example.com:8443/agent",
			TlsCertSha256: certHash,
			Agents:        []string{s.operator(1)},
		}
	}
	testCases := []struct {
		name   string
		setup  func()
		modify func(*types.MsgRegisterProvider)
		expErr error
	}{
		{name: "valid", modify: func(*types.MsgRegisterProvider) {}},
		{name: "continent only, loopback http without a pin", modify: func(m *types.MsgRegisterProvider) {
			m.Region, m.Endpoint, m.TlsCertSha256, m.Agents = "as", "http://127.0.0.1:9180", "", nil
		}},
		{name: "registered twice", setup: func() { s.register(0) }, modify: func(*types.MsgRegisterProvider) {}, expErr: types.ErrProviderExists},
		{name: "bad operator address", modify: func(m *types.MsgRegisterProvider) { m.Operator = "idle1xyz" }, expErr: types.ErrInvalidAddress},
		{name: "empty moniker", modify: func(m *types.MsgRegisterProvider) { m.Moniker = "" }, expErr: types.ErrInvalidMoniker},
		{name: "over-long moniker", modify: func(m *types.MsgRegisterProvider) { m.Moniker = strings.Repeat("m", 65) }, expErr: types.ErrInvalidMoniker},
		{name: "moniker with trailing space", modify: func(m *types.MsgRegisterProvider) { m.Moniker = "rack " }, expErr: types.ErrInvalidMoniker},
		{name: "moniker with a control character", modify: func(m *types.MsgRegisterProvider) { m.Moniker = "rack\x07" }, expErr: types.ErrInvalidMoniker},
		{name: "region eu-west", modify: func(m *types.MsgRegisterProvider) { m.Region = "eu-west" }, expErr: types.ErrInvalidRegion},
		{name: "upper-case region", modify: func(m *types.MsgRegisterProvider) { m.Region = "EU-DE" }, expErr: types.ErrInvalidRegion},
		{name: "unknown continent", modify: func(m *types.MsgRegisterProvider) { m.Region = "xx" }, expErr: types.ErrInvalidRegion},
		{name: "one-letter site", modify: func(m *types.MsgRegisterProvider) { m.Region = "eu-de-f" }, expErr: types.ErrInvalidRegion},
		{name: "four segments", modify: func(m *types.MsgRegisterProvider) { m.Region = "eu-de-fra1-a" }, expErr: types.ErrInvalidRegion},
		{name: "no region", modify: func(m *types.MsgRegisterProvider) { m.Region = "" }, expErr: types.ErrInvalidRegion},
		{name: "ftp endpoint", modify: func(m *types.MsgRegisterProvider) { m.Endpoint = "ftp://gpu.example.com" }, expErr: types.ErrInvalidEndpoint},
		{name: "plain http on the internet", modify: func(m *types.MsgRegisterProvider) { m.Endpoint = "http://gpu.example.com" }, expErr: types.ErrInvalidEndpoint},
		{name: "endpoint with a query", modify: func(m *types.MsgRegisterProvider) { m.Endpoint = "https://gpu.example.com/?a=b" }, expErr: types.ErrInvalidEndpoint},
		{name: "endpoint with user info", modify: func(m *types.MsgRegisterProvider) { m.Endpoint = "https://u:p@gpu.example.com" }, expErr: types.ErrInvalidEndpoint},
		{name: "https without a pin", modify: func(m *types.MsgRegisterProvider) { m.TlsCertSha256 = "" }, expErr: types.ErrInvalidCertHash},
		{name: "pin not hex", modify: func(m *types.MsgRegisterProvider) { m.TlsCertSha256 = strings.Repeat("z", 64) }, expErr: types.ErrInvalidCertHash},
		{name: "upper-case pin", modify: func(m *types.MsgRegisterProvider) { m.TlsCertSha256 = strings.ToUpper(certHash) }, expErr: types.ErrInvalidCertHash},
		{name: "short pin", modify: func(m *types.MsgRegisterProvider) { m.TlsCertSha256 = certHash[:62] }, expErr: types.ErrInvalidCertHash},
		{name: "operator as its own agent", modify: func(m *types.MsgRegisterProvider) { m.Agents = []string{s.operator(0)} }, expErr: types.ErrInvalidAgents},
		{name: "agent twice", modify: func(m *types.MsgRegisterProvider) { m.Agents = []string{s.operator(1), s.operator(1)} }, expErr: types.ErrInvalidAgents},
		{name: "malformed agent", modify: func(m *types.MsgRegisterProvider) { m.Agents = []string{"idle1nope"} }, expErr: types.ErrInvalidAgents},
		{name: "more agents than max_agents", setup: func() { s.setParams(func(p *types.Params) { p.MaxAgents = 1 }) },
			modify: func(m *types.MsgRegisterProvider) { m.Agents = []string{s.operator(1), s.operator(2)} }, expErr: types.ErrInvalidAgents},
	}
	for _, tc := range testCases {
		s.Run(tc.name, func() {
			s.SetupTest()
			if tc.setup != nil {
				tc.setup()
			}
			msg := valid()
			tc.modify(msg)
			before := s.snapshot()

			_, err := s.msgServer.RegisterProvider(s.ctx, msg)

			if tc.expErr != nil {
				s.Require().ErrorIs(err, tc.expErr)
				s.Require().Equal(before, s.snapshot(), "a rejected message changes nothing")
				return
			}
			s.Require().NoError(err)
			p := s.provider(0)
			s.Require().Equal(types.Provider{
				Operator:      msg.Operator,
				Moniker:       msg.Moniker,
				Region:        msg.Region,
				Endpoint:      msg.Endpoint,
				TlsCertSha256: msg.TlsCertSha256,
				Agents:        msg.Agents,
				Stake:         ugpu(0),
				Unbonding:     ugpu(0),
				Status:        types.PROVIDER_STATUS_INACTIVE,
				CreatedAt:     s.ctx.BlockTime(),
			}, p)
			rel, err := s.keeper.Reliability(s.ctx, s.accs[0].Address)
			s.Require().NoError(err)
			s.Require().EqualValues(9000, rel, "new providers start at initial_reliability_bps")
			s.requireEvent(&types.EventProviderRegistered{Provider: msg.Operator, Moniker: msg.Moniker, Region: msg.Region})
		})
	}
}

func (s *KeeperTestSuite) TestUpdateProvider() {
	update := func(operator string) *types.MsgUpdateProvider {
		return &types.MsgUpdateProvider{
			Operator: operator, Moniker: "renamed", Region: "na-us-iad2",
			Endpoint: "https://agent.example.net", TlsCertSha256: certHash, Agents: []string{s.operator(2), s.operator(3)},
		}
	}
	s.Run("the operator replaces description and agents", func() {
		s.SetupTest()
		s.register(0, s.operator(1))
		s.bond(0, 100_000_000)
		_, err := s.msgServer.UpdateProvider(s.ctx, update(s.operator(0)))
		s.Require().NoError(err)
		p := s.provider(0)
		s.Require().Equal("renamed", p.Moniker)
		s.Require().Equal("na-us-iad2", p.Region)
		s.Require().Equal("https://agent.example.net", p.Endpoint)
		s.Require().Equal([]string{s.operator(2), s.operator(3)}, p.Agents)
		s.Require().Equal(ugpu(100_000_000), p.Stake, "stake is untouched")
		s.Require().Equal(types.PROVIDER_STATUS_ACTIVE, p.Status)
		s.requireEvent(&types.EventProviderUpdated{Provider: s.operator(0), Agents: []string{s.operator(2), s.operator(3)}})
	})
	for _, tc := range []struct {
		name   string
		setup  func()
		msg    func() *types.MsgUpdateProvider
		expErr error
	}{
		{"an agent cannot change the agents", func() { s.register(0, s.operator(1)) }, func() *types.MsgUpdateProvider { return update(s.operator(1)) }, types.ErrProviderNotFound},
		{"unknown provider", func() {}, func() *types.MsgUpdateProvider { return update(s.operator(0)) }, types.ErrProviderNotFound},
		{"bad region", func() { s.register(0) }, func() *types.MsgUpdateProvider { m := update(s.operator(0)); m.Region = "eu-west"; return m }, types.ErrInvalidRegion},
		{"operator among its agents", func() { s.register(0) }, func() *types.MsgUpdateProvider {
			m := update(s.operator(0))
			m.Agents = append(m.Agents, s.operator(0))
			return m
		}, types.ErrInvalidAgents},
		{"tombstoned", func() { s.register(0); s.Require().NoError(s.keeper.Tombstone(s.ctx, s.accs[0].Address)) },
			func() *types.MsgUpdateProvider { return update(s.operator(0)) }, types.ErrTombstoned},
	} {
		s.Run(tc.name, func() {
			s.SetupTest()
			tc.setup()
			before := s.snapshot()
			_, err := s.msgServer.UpdateProvider(s.ctx, tc.msg())
			s.Require().ErrorIs(err, tc.expErr)
			s.Require().Equal(before, s.snapshot())
		})
	}
}

func (s *KeeperTestSuite) TestJailAndUnjail() {
	s.register(0)
	s.bond(0, 150_000_000)
	until := s.ctx.BlockTime().Add(time.Hour)
	s.Require().NoError(s.keeper.Jail(s.ctx, s.accs[0].Address, until))
	s.Require().Equal(types.PROVIDER_STATUS_JAILED, s.provider(0).Status)
	s.Require().Equal(until, s.provider(0).JailedUntil)
	s.requireEvent(&types.EventJailed{Provider: s.operator(0), JailedUntil: until})
	s.Require().ErrorIs(s.keeper.CanCommitGPUs(s.ctx, s.accs[0].Address, 1), types.ErrProviderNotActive)

	// A shorter second jail does not shorten the first.
	s.Require().NoError(s.keeper.Jail(s.ctx, s.accs[0].Address, until.Add(-time.Minute)))
	s.Require().Equal(until, s.provider(0).JailedUntil)

	// Bonding while jailed keeps the provider jailed.
	s.bond(0, 1)
	s.Require().Equal(types.PROVIDER_STATUS_JAILED, s.provider(0).Status)

	before := s.snapshot()
	_, err := s.msgServer.Unjail(s.ctx.WithBlockTime(until.Add(-time.Second)), &types.MsgUnjail{Operator: s.operator(0)})
	s.Require().ErrorIs(err, types.ErrStillJailed)
	s.Require().Equal(before, s.snapshot())

	s.ctx = s.ctx.WithBlockTime(until)
	res, err := s.msgServer.Unjail(s.ctx, &types.MsgUnjail{Operator: s.operator(0)})
	s.Require().NoError(err)
	s.Require().Equal(types.PROVIDER_STATUS_ACTIVE, res.Status)
	s.Require().Equal(types.PROVIDER_STATUS_ACTIVE, s.provider(0).Status)
	s.requireEvent(&types.EventUnjailed{Provider: s.operator(0), Status: types.PROVIDER_STATUS_ACTIVE})

	_, err = s.msgServer.Unjail(s.ctx, &types.MsgUnjail{Operator: s.operator(0)})
	s.Require().ErrorIs(err, types.ErrNotJailed)
}

func (s *KeeperTestSuite) TestUnjailWithoutEnoughStakeIsInactive() {
	s.register(0)
	s.bond(0, 99_999_999) // one unit short of one GPU
	s.Require().NoError(s.keeper.Jail(s.ctx, s.accs[0].Address, s.ctx.BlockTime()))
	res, err := s.msgServer.Unjail(s.ctx, &types.MsgUnjail{Operator: s.operator(0)})
	s.Require().NoError(err)
	s.Require().Equal(types.PROVIDER_STATUS_INACTIVE, res.Status)
}

// requireEvent requires want among the typed events emitted on s.ctx.
func (s *KeeperTestSuite) requireEvent(want proto.Message) {
	s.T().Helper()
	// Compare encodings: proto.Equal misjudges gogoproto custom types
	// (math.Int) and std times.
	wantBz, err := proto.Marshal(want)
	s.Require().NoError(err)
	var seen []proto.Message
	for _, e := range s.ctx.EventManager().Events() {
		got, err := sdk.ParseTypedEvent(abciEvent(e))
		if err != nil {
			continue // an SDK module's untyped event
		}
		if gotBz, err := proto.Marshal(got); err == nil && proto.MessageName(got) == proto.MessageName(want) && bytes.Equal(gotBz, wantBz) {
			return
		}
		seen = append(seen, got)
	}
	s.Failf("event not emitted", "want %v\namong %v", want, seen)
}
