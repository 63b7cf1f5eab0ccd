package keeper

import (
	"context"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// CreateOffer puts GPUs on the market. Checks run cheapest first; nothing is
// written until all pass.
func (m msgServer) CreateOffer(ctx context.Context, msg *types.MsgCreateOffer) (*types.MsgCreateOfferResponse, error) {
	signer, err := m.address("signer", msg.Signer)
	if err != nil {
		return nil, err
	}
	providerAddr, err := m.address("provider", msg.Provider)
	if err != nil {
		return nil, err
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	if err := types.ValidateGPUList(msg.GpuUuids, params.MaxGpusPerOffer); err != nil {
		return nil, err
	}
	if err := validateTerms(ctx, msg.Terms, params); err != nil {
		return nil, err
	}
	p, err := m.authorize(ctx, signer, providerAddr)
	if err != nil {
		return nil, err
	}
	region := msg.Region
	if region == "" {
		region = p.Region
	}
	if err := providertypes.ValidateRegion(region); err != nil {
		return nil, errorsmod.Wrap(types.ErrInvalidRegion, err.Error())
	}
	model, memory, err := m.offeredGPUs(ctx, p, msg.GpuUuids)
	if err != nil {
		return nil, err
	}
	if err := m.checkNotHeld(ctx, msg.GpuUuids); err != nil {
		return nil, err
	}
	// Jailed, tombstoned, inactive or under-staked providers stop here with
	// x/provider's own typed error.
	if err := m.providers.CanCommitGPUs(ctx, providerAddr, uint32(len(msg.GpuUuids))); err != nil {
		return nil, err
	}
	st, err := m.stats(ctx, providerAddr)
	if err != nil {
		return nil, err
	}
	if st.Offers >= params.MaxOffersPerProvider {
		return nil, errorsmod.Wrapf(types.ErrTooManyOffers, "%s has %d open or paused offers, at most %d", p.Operator, st.Offers, params.MaxOffersPerProvider)
	}
	if err := m.providers.CommitGPUs(ctx, providerAddr, msg.GpuUuids); err != nil {
		return nil, err
	}

	id, err := m.OfferSeq.Next(ctx)
	if err != nil {
		return nil, err
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	offer := types.Offer{
		Id:        id,
		Provider:  p.Operator,
		GpuUuids:  msg.GpuUuids,
		Model:     model,
		MemoryMib: memory,
		Region:    region,
		Terms:     msg.Terms,
		Status:    types.OFFER_STATUS_OPEN,
		CreatedAt: now,
		UpdatedAt: now,
	}
	if err := m.saveOffer(ctx, nil, &offer); err != nil {
		return nil, err
	}
	if err := sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventOfferCreated{Offer: offer}); err != nil {
		return nil, err
	}
	return &types.MsgCreateOfferResponse{OfferId: id}, nil
}

// UpdateOffer replaces an offer's terms and may pause or reopen it. An offer
// that is OPEN after the change needs an ACTIVE provider whose stake still
// covers its GPUs; pausing is always allowed.
func (m msgServer) UpdateOffer(ctx context.Context, msg *types.MsgUpdateOffer) (*types.MsgUpdateOfferResponse, error) {
	before, providerAddr, err := m.changeableOffer(ctx, msg.Signer, msg.OfferId)
	if err != nil {
		return nil, err
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	if err := validateTerms(ctx, msg.Terms, params); err != nil {
		return nil, err
	}
	after := before
	after.Terms = msg.Terms
	if err := types.ValidateStatusChange(msg.Status); err != nil {
		return nil, err
	}
	if msg.Status != types.OFFER_STATUS_UNSPECIFIED {
		after.Status = msg.Status
	}
	if after.Status == types.OFFER_STATUS_OPEN {
		if err := m.providers.CanCommitGPUs(ctx, providerAddr, 0); err != nil {
			return nil, err
		}
	}
	after.UpdatedAt = sdk.UnwrapSDKContext(ctx).BlockTime()
	if err := m.saveOffer(ctx, &before, &after); err != nil {
		return nil, err
	}
	if err := sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventOfferUpdated{Offer: after}); err != nil {
		return nil, err
	}
	return &types.MsgUpdateOfferResponse{}, nil
}

// CloseOffer takes an offer off the market. Its free GPUs are released at
// once; leased ones stay with the CLOSED offer until their leases end.
func (m msgServer) CloseOffer(ctx context.Context, msg *types.MsgCloseOffer) (*types.MsgCloseOfferResponse, error) {
	before, providerAddr, err := m.changeableOffer(ctx, msg.Signer, msg.OfferId)
	if err != nil {
		return nil, err
	}
	free := before.FreeGPUs()
	if len(free) > 0 {
		if err := m.providers.ReleaseGPUs(ctx, providerAddr, free); err != nil {
			return nil, err
		}
	}
	em := sdk.UnwrapSDKContext(ctx).EventManager()
	if err := em.EmitTypedEvent(&types.EventOfferClosed{
		OfferId: before.Id, Provider: before.Provider, ReleasedGpuUuids: free, OccupiedGpuUuids: before.OccupiedGpuUuids,
	}); err != nil {
		return nil, err
	}
	if len(before.OccupiedGpuUuids) == 0 {
		if err := m.saveOffer(ctx, &before, nil); err != nil {
			return nil, err
		}
		return &types.MsgCloseOfferResponse{}, em.EmitTypedEvent(&types.EventOfferRemoved{OfferId: before.Id})
	}
	after := before
	after.Status = types.OFFER_STATUS_CLOSED
	after.GpuUuids = before.OccupiedGpuUuids
	after.UpdatedAt = sdk.UnwrapSDKContext(ctx).BlockTime()
	return &types.MsgCloseOfferResponse{}, m.saveOffer(ctx, &before, &after)
}

// changeableOffer loads an offer the signer may change: the signer is a
// valid address, the offer exists, is not closed, and the signer acts for
// its provider.
func (m msgServer) changeableOffer(ctx context.Context, signerStr string, id uint64) (types.Offer, sdk.AccAddress, error) {
	signer, err := m.address("signer", signerStr)
	if err != nil {
		return types.Offer{}, nil, err
	}
	o, err := m.Offer(ctx, id)
	if err != nil {
		return o, nil, err
	}
	if o.Status == types.OFFER_STATUS_CLOSED {
		return o, nil, errorsmod.Wrapf(types.ErrOfferClosed, "offer %d", id)
	}
	providerAddr, err := m.addressCodec.StringToBytes(o.Provider)
	if err != nil {
		return o, nil, err
	}
	if _, err := m.authorize(ctx, signer, providerAddr); err != nil {
		return o, nil, err
	}
	return o, providerAddr, nil
}
