package daemon

import (
	"context"
	"math/big"

	sdk "github.com/cosmos/cosmos-sdk/types"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// claim moves the provider's unclaimed rewards to its account. Only the
// operator may claim; an agent with its own key leaves that to the operator.
func (d *Daemon) claim(ctx context.Context) error {
	rewards, err := d.q.Rewards(ctx, d.provider)
	if err != nil {
		return err
	}
	for _, c := range rewards {
		f, _ := new(big.Float).SetInt(c.Amount.BigInt()).Float64()
		d.m.Earnings.WithLabelValues(c.Denom).Set(f)
	}
	if rewards.IsZero() || d.signer != d.provider {
		return nil
	}
	res, err := d.chain.Submit(ctx, &settlementtypes.MsgClaimRewards{Operator: d.provider})
	if err != nil {
		return err
	}
	for _, c := range rewards {
		d.m.Earnings.WithLabelValues(c.Denom).Set(0)
	}
	d.log.Info("rewards claimed", "amount", sdk.Coins(rewards).String(), "tx", res.TxHash)
	return nil
}
