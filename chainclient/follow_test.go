package chainclient_test

import (
	"context"
	"errors"
	"time"

	"github.com/idlegpu/idlegpu/chainclient"
)

var errEnough = errors.New("enough headers")

// requireChain checks that headers are consecutive from their first height,
// carry the node's own header hash and time, and that time never goes back.
func (s *ChainSuite) requireChain(headers []chainclient.Header) {
	ctx := context.Background()
	s.Require().NotEmpty(headers)
	for i, h := range headers {
		height := h.Height
		s.Require().Equal(headers[0].Height+int64(i), height, "no gap and no repeat at index %d", i)
		hdr, err := s.rpc.Header(ctx, &height)
		s.Require().NoError(err)
		s.Require().Equal([]byte(hdr.Header.Hash()), h.Hash, "header hash at %d", height)
		blk, err := s.rpc.Block(ctx, &height)
		s.Require().NoError(err)
		s.Require().Equal([]byte(blk.BlockID.Hash), h.Hash, "block id hash at %d", height)
		s.Require().True(hdr.Header.Time.Equal(h.Time), "time at %d", height)
		if i > 0 {
			s.Require().False(h.Time.Before(headers[i-1].Time), "time goes back at %d", height)
		}
	}
}

func (s *ChainSuite) TestFollowHeadersCatchesUpIntoLive() {
	c := s.newClient(s.config(s.validatorKey()))
	_, err := s.net.WaitForHeight(5)
	s.Require().NoError(err)
	st, err := s.rpc.Status(context.Background())
	s.Require().NoError(err)
	latest := st.SyncInfo.LatestBlockHeight
	from, until := latest-3, latest+3 // four stored headers, then three made while following

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got []chainclient.Header
	err = c.FollowHeaders(ctx, from, func(h chainclient.Header) error {
		got = append(got, h)
		if h.Height == until {
			return errEnough
		}
		return nil
	})

	s.Require().Equal(errEnough, err, "fn's error comes back as it is")
	s.Require().Len(got, int(until-from+1))
	s.Require().Equal(from, got[0].Height)
	s.requireChain(got)
}

func (s *ChainSuite) TestFollowHeadersFromLatest() {
	c := s.newClient(s.config(s.validatorKey()))
	st, err := s.rpc.Status(context.Background())
	s.Require().NoError(err)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got []chainclient.Header
	err = c.FollowHeaders(ctx, 0, func(h chainclient.Header) error {
		got = append(got, h)
		if len(got) == 3 {
			return errEnough
		}
		return nil
	})

	s.Require().Equal(errEnough, err)
	s.Require().Len(got, 3)
	s.Require().GreaterOrEqual(got[0].Height, st.SyncInfo.LatestBlockHeight)
	s.Require().LessOrEqual(got[0].Height, st.SyncInfo.LatestBlockHeight+1, "starts at the latest, not at genesis")
	s.requireChain(got)
}

func (s *ChainSuite) TestFollowHeadersEndsWithContext() {
	c := s.newClient(s.config(s.validatorKey()))
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var got []chainclient.Header
	err := c.FollowHeaders(ctx, 0, func(h chainclient.Header) error {
		got = append(got, h)
		return nil
	})

	s.Require().ErrorIs(err, context.DeadlineExceeded)
	s.requireChain(got)
}

// A node outage (every connection dropped, new ones refused) loses the
// websocket and the live headers of the blocks made meanwhile; the follower
// gets them anyway, in order. A short outage is bridged by the websocket
// client's own reconnection and a gap catch-up; one longer than the
// follower's stall wait ends its session, and it reconnects by itself.
func (s *ChainSuite) TestFollowHeadersSurvivesNodeOutage() {
	tests := []struct {
		name            string
		outage          time.Duration
		ownReconnection bool
	}{
		{name: "three blocks", outage: 3 * time.Second},
		{name: "longer than the stall wait", outage: 7 * time.Second, ownReconnection: true},
	}
	for _, tc := range tests {
		s.Run(tc.name, func() {
			p := newProxy(s.T(), s.val.RPCAddress)
			logs := &logBuffer{}
			cfg := s.config(s.validatorKey())
			cfg.RPC = p.url()
			cfg.Logger = logs.logger()
			c := s.newClient(cfg)

			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			const blocksAfterCut = 6
			var (
				got           []chainclient.Header
				cutAt         int64
				acceptedAtCut int64
			)
			err := c.FollowHeaders(ctx, 0, func(h chainclient.Header) error {
				got = append(got, h)
				switch {
				case len(got) == 2:
					cutAt, acceptedAtCut = h.Height, p.accepted.Load()
					p.cut(tc.outage)
				case cutAt > 0 && h.Height >= cutAt+blocksAfterCut:
					return errEnough
				}
				return nil
			})

			s.Require().Equal(errEnough, err)
			s.Require().Len(got, 2+blocksAfterCut)
			s.requireChain(got)
			s.Require().Positive(p.refused.Load(), "the follower tried to reconnect during the outage")
			s.Require().Greater(p.accepted.Load(), acceptedAtCut, "and connected again after it")
			if tc.ownReconnection {
				s.Require().Positive(logs.count("header follower reconnecting"))
			}
		})
	}
}
