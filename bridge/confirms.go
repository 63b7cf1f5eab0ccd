package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// confirmValset signs the newest valset's checkpoint once per validator.
// Every registered signer signs, not only the new set's members: the vault
// rotates on the signatures of the set it holds now.
func (o *orchestrator) confirmValset(ctx context.Context, p bridgeParams, validator string) error {
	res, err := o.q.Valset(ctx, &bridgetypes.QueryValsetRequest{Nonce: 0})
	if notFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("newest valset: %w", err)
	}
	if confirmedBy(res.Confirms, validator) {
		return nil
	}
	_, cp, err := p.checkedValset(res.Valset)
	if err != nil {
		return fmt.Errorf("refusing to sign: %w", err)
	}
	sig, err := o.sign(cp)
	if err != nil {
		return err
	}
	_, err = o.chain.Submit(ctx, &bridgetypes.MsgConfirmValset{
		Orchestrator: o.chain.Address().String(), Nonce: res.Valset.Nonce, Signature: sig,
	})
	if errors.Is(err, bridgetypes.ErrAlreadyConfirmed) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("confirming valset %d: %w", res.Valset.Nonce, err)
	}
	o.m.Confirms.WithLabelValues("valset").Inc()
	o.log.Info("confirmed valset", "nonce", res.Valset.Nonce, "checkpoint", cp.Hex())
	return nil
}

// confirmRoot signs the newest payout root's digest if this validator's
// signer is in the valset the root is signed under.
func (o *orchestrator) confirmRoot(ctx context.Context, p bridgeParams, validator string) error {
	res, err := o.q.Root(ctx, &bridgetypes.QueryRootRequest{Epoch: 0})
	if notFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("newest root: %w", err)
	}
	r := res.Root
	if r.Epoch == 0 || confirmedBy(res.Confirms, validator) {
		return nil
	}
	vs, err := o.q.Valset(ctx, &bridgetypes.QueryValsetRequest{Nonce: r.ValsetNonce})
	if err != nil {
		return fmt.Errorf("root %d: valset %d: %w", r.Epoch, r.ValsetNonce, err)
	}
	pv, _, err := p.checkedValset(vs.Valset)
	if err != nil {
		return fmt.Errorf("refusing to sign root %d: %w", r.Epoch, err)
	}
	if pv.IndexOf(o.evmAddr) < 0 {
		return nil
	}
	_, digest, err := p.checkedRoot(r)
	if err != nil {
		return fmt.Errorf("refusing to sign: %w", err)
	}
	sig, err := o.sign(digest)
	if err != nil {
		return err
	}
	_, err = o.chain.Submit(ctx, &bridgetypes.MsgConfirmRoot{
		Orchestrator: o.chain.Address().String(), Epoch: r.Epoch, Signature: sig,
	})
	if errors.Is(err, bridgetypes.ErrAlreadyConfirmed) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("confirming root %d: %w", r.Epoch, err)
	}
	o.m.Confirms.WithLabelValues("root").Inc()
	o.log.Info("confirmed root", "epoch", r.Epoch, "root", r.Root, "total", r.TotalCumulative.String())
	return nil
}

// confirmedBy says whether validator is among confirms.
func confirmedBy(confirms []bridgetypes.Confirm, validator string) bool {
	for _, c := range confirms {
		if c.Validator == validator {
			return true
		}
	}
	return false
}

// notFound: the chain has nothing of that kind yet (no valset, no root).
func notFound(err error) bool {
	if err == nil {
		return false
	}
	if s, ok := status.FromError(err); ok && s.Code() == codes.NotFound {
		return true
	}
	// Over ABCI a query error keeps only its text and code.
	return errors.Is(err, bridgetypes.ErrValsetNotFound) || errors.Is(err, bridgetypes.ErrRootNotFound) ||
		strings.Contains(err.Error(), "not found")
}
