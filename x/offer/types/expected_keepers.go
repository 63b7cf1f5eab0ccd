package types

import (
	"context"

	sdk "github.com/cosmos/cosmos-sdk/types"

	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// ProviderKeeper is the part of x/provider the module uses: who may act for
// a provider, what its GPUs are, and the stake-backed commitment of GPUs to
// offers (x/provider/README.md documents each method).
type ProviderKeeper interface {
	Provider(ctx context.Context, addr sdk.AccAddress) (providertypes.Provider, error)
	IsAuthorized(ctx context.Context, provider, signer sdk.AccAddress) (bool, error)
	GPU(ctx context.Context, uuid string) (providertypes.GPU, error)
	// GPUs lists a provider's GPUs; the simulator picks free ones from it.
	GPUs(ctx context.Context, provider sdk.AccAddress) ([]providertypes.GPU, error)
	CanCommitGPUs(ctx context.Context, provider sdk.AccAddress, n uint32) error
	CommitGPUs(ctx context.Context, provider sdk.AccAddress, uuids []string) error
	ReleaseGPUs(ctx context.Context, provider sdk.AccAddress, uuids []string) error
}

// PaymentDenomsGuard checks a new payment_denoms against the other
// modules' params: x/settlement's reliability_step_payment must price every
// payment denom (docs/design.md#failure-costs-and-fees).
type PaymentDenomsGuard interface {
	CheckPaymentDenoms(ctx context.Context, denoms []string) error
}

// GPUHolds says which GPUs x/settlement holds out of the market: under
// audit, or not verified by a recent enough audit.
type GPUHolds interface {
	// GPUHeld says no new offer may take the GPU.
	GPUHeld(ctx context.Context, uuid string) (bool, error)
	// GPUReserved says a hold occupies the GPU in its offer: a lease or
	// anything else ending there leaves it occupied until the hold ends.
	GPUReserved(ctx context.Context, uuid string) (bool, error)
}
