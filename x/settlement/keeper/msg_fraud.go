package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// ReportFraud judges a fraud report: the sample must sit under the stored
// proof's samples_root at leaf_index (the tree's size comes from the proof's
// own sample counts, never from the reporter) and contradict the proof's
// summary. Then the provider is convicted (convict: the reporter gets the
// reporter's share) and the proof record is dropped, so one lie is judged
// once. A sample that agrees with the proof changes nothing.
func (m msgServer) ReportFraud(ctx context.Context, msg *types.MsgReportFraud) (*types.MsgReportFraudResponse, error) {
	reporter, err := m.addressCodec.StringToBytes(msg.Reporter)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrUnauthorized, "reporter: %v", err)
	}
	key := collections.Join(msg.LeaseId, msg.Epoch)
	rec, err := m.Proofs.Get(ctx, key)
	if errors.Is(err, collections.ErrNotFound) {
		return nil, errorsmod.Wrapf(types.ErrProofNotFound, "lease %d epoch %d", msg.LeaseId, msg.Epoch)
	}
	if err != nil {
		return nil, err
	}
	leaf, err := msg.Sample.LeafHash()
	if err != nil {
		return nil, err
	}
	if err := types.VerifyMerklePath(rec.Proof.SamplesRoot, leaf, msg.LeafIndex, rec.Proof.SampleCount(), msg.Path); err != nil {
		return nil, err
	}
	why := rec.Proof.Contradiction(msg.Sample)
	if why == "" {
		return nil, errorsmod.Wrapf(types.ErrNoContradiction, "sample %s", msg.Sample.String())
	}
	provider, err := m.addressCodec.StringToBytes(rec.Provider)
	if err != nil {
		return nil, err
	}
	slashed, n, err := m.convict(ctx, provider, reporter, "provider proven fraudulent: "+why)
	if err != nil {
		return nil, err
	}
	if err := m.dropProof(ctx, rec); err != nil {
		return nil, err
	}
	if err := sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventFraudProven{
		LeaseId: msg.LeaseId, Epoch: msg.Epoch, Provider: rec.Provider, Reporter: msg.Reporter, Contradiction: why, Slashed: slashed,
	}); err != nil {
		return nil, err
	}
	return &types.MsgReportFraudResponse{Slashed: slashed, LeasesFailed: uint32(n)}, nil
}
