package keeper

import (
	"context"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// convict is the fraud verdict (docs/design.md#fraud-proofs), whoever proved
// the fraud — a fraud report or a failed audit: every live lease of the
// provider ends SLASHED (renters get the unpaid rest back), the provider is
// slashed slash_fraud with the beneficiary's share and tombstoned. A
// provider is convicted once: a tombstoned one gives ErrAlreadyTombstoned
// and nothing changes.
func (k Keeper) convict(ctx context.Context, provider, beneficiary sdk.AccAddress, reason string) (slashed sdk.Coin, leasesFailed int, err error) {
	p, err := k.providers.Provider(ctx, provider)
	if err != nil {
		return sdk.Coin{}, 0, err
	}
	if p.Status == providertypes.PROVIDER_STATUS_TOMBSTONED {
		return sdk.Coin{}, 0, errorsmod.Wrapf(types.ErrAlreadyTombstoned, "%s was already judged", p.Operator)
	}
	if leasesFailed, err = k.auction.EndProviderLeases(ctx, provider, auctiontypes.LEASE_STATUS_SLASHED, reason); err != nil {
		return sdk.Coin{}, 0, err
	}
	if slashed, err = k.providers.PunishFraud(ctx, provider, beneficiary); err != nil {
		return sdk.Coin{}, 0, err
	}
	return slashed, leasesFailed, nil
}
