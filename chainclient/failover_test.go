package chainclient_test

import (
	"context"
	"time"

	sdkmath "cosmossdk.io/math"

	"github.com/idlegpu/idlegpu/chainclient"
)

// TestFailoverToTheNextNode: with two RPC addresses of which the first is
// down, queries, transactions and the header follower all go through the
// second.
func (s *ChainSuite) TestFailoverToTheNextNode() {
	down := newProxy(s.T(), s.val.RPCAddress)
	down.cut(time.Hour)
	cfg := s.config(s.validatorKey())
	cfg.RPC, cfg.Fallbacks = down.url(), []string{s.val.RPCAddress}
	c := s.newClient(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	recipient := testAddr("chain-test-failover")
	res, err := c.Submit(ctx, send(c.Address(), recipient, 4_321))
	s.Require().NoError(err)
	s.Require().Zero(res.Code, res.RawLog)
	s.Require().Equal(sdkmath.NewInt(4_321), s.balance(c, recipient, res.Height))
	s.Require().Positive(down.refused.Load(), "the first node was tried")

	var got []chainclient.Header
	err = c.FollowHeaders(ctx, res.Height, func(h chainclient.Header) error {
		got = append(got, h)
		if len(got) == 2 {
			return errEnough
		}
		return nil
	})
	s.Require().Equal(errEnough, err)
	s.Require().Equal(res.Height, got[0].Height)
	s.requireChain(got)
}
