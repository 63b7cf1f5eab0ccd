package types

import (
	"context"

	sdk "github.com/cosmos/cosmos-sdk/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// BankKeeper pays rewards out and the fee to the fee collector, and
// escrows audit fees.
type BankKeeper interface {
	SendCoinsFromAccountToModule(ctx context.Context, senderAddr sdk.AccAddress, recipientModule string, amt sdk.Coins) error
	SendCoinsFromModuleToAccount(ctx context.Context, senderModule string, recipient sdk.AccAddress, amt sdk.Coins) error
	SendCoinsFromModuleToModule(ctx context.Context, senderModule, recipientModule string, amt sdk.Coins) error
	GetAllBalances(ctx context.Context, addr sdk.AccAddress) sdk.Coins
}

// AuctionKeeper is the part of x/auction settlement drives: leases, their
// cumulative payment out of escrow, and their end.
type AuctionKeeper interface {
	Lease(ctx context.Context, id uint64) (auctiontypes.Lease, error)
	// PayLeases pays each lease its proven time (auctiontypes.Accrue, in
	// order), moves the sum from escrow to this module in one transfer and
	// returns each payment and the sum. It calls nothing back.
	PayLeases(ctx context.Context, payments []auctiontypes.LeasePayment) ([]sdk.Coin, sdk.Coins, error)
	EndLease(ctx context.Context, leaseID uint64, status auctiontypes.LeaseStatus, reason string) error
	// EndSettledLease ends a lease whose last epoch was settled, recording
	// for its provider what its epochs add up to.
	EndSettledLease(ctx context.Context, leaseID uint64, rec auctiontypes.SettledRecord) error
	EndProviderLeases(ctx context.Context, provider sdk.AccAddress, status auctiontypes.LeaseStatus, reason string) (int, error)
	// RunningLeaseOfGPU is the provider's running lease holding a GPU.
	RunningLeaseOfGPU(ctx context.Context, provider sdk.AccAddress, uuid string) (auctiontypes.Lease, bool, error)
}

// ProviderKeeper is the part of x/provider settlement uses: who may act for
// a provider, what its GPUs are, and its reputation.
type ProviderKeeper interface {
	Provider(ctx context.Context, addr sdk.AccAddress) (providertypes.Provider, error)
	IsAuthorized(ctx context.Context, provider, signer sdk.AccAddress) (bool, error)
	GPU(ctx context.Context, uuid string) (providertypes.GPU, error)
	// GPUs is used by the simulator only, to find GPUs to audit.
	GPUs(ctx context.Context, provider sdk.AccAddress) ([]providertypes.GPU, error)
	// GPUAtOrAfter is the registered GPU with the least UUID ≥ from,
	// wrapping to the first: one random pick in O(log n).
	GPUAtOrAfter(ctx context.Context, from string) (providertypes.GPU, bool, error)
	// SimulatedGPUsAllowed says whether the chain is a development chain
	// (x/provider's allow_simulated_gpus).
	SimulatedGPUsAllowed(ctx context.Context) (bool, error)
	RecordEpoch(ctx context.Context, provider sdk.AccAddress, proven bool) error
	// RecordEpochWeighted moves reliability weightBps of a full step.
	RecordEpochWeighted(ctx context.Context, provider sdk.AccAddress, proven bool, weightBps uint32) error
	PunishLiveness(ctx context.Context, provider sdk.AccAddress) error
	PunishFraud(ctx context.Context, provider, reporter sdk.AccAddress) (sdk.Coin, error)
}

// OfferKeeper is the part of x/offer audits use: which offer holds a GPU,
// the market's currencies, and holding an audited GPU out of the market.
type OfferKeeper interface {
	OfferOfGPU(ctx context.Context, uuid string) (offertypes.Offer, bool, error)
	AcceptsDenom(ctx context.Context, denom string) (bool, error)
	// PaymentDenoms is the market's payment denoms.
	PaymentDenoms(ctx context.Context) ([]string, error)
	// OccupyForAudit holds GPUs of an OPEN or PAUSED offer out of the market.
	OccupyForAudit(ctx context.Context, offerID uint64, uuids []string) error
	VacateGPUs(ctx context.Context, offerID uint64, uuids []string) error
}

// OfferHoldsSetter is x/offer's keeper as the app wires settlement's audit
// holds into it: a GPU under audit may not enter a new offer.
type OfferHoldsSetter interface {
	SetGPUHolds(h offertypes.GPUHolds)
	SetPaymentDenomsGuard(g offertypes.PaymentDenomsGuard)
}

// AuctionHooksSetter is x/auction's keeper as the app wires settlement's
// lease hooks into it.
type AuctionHooksSetter interface {
	SetHooks(h auctiontypes.LeaseHooks)
}
