package types

import (
	"context"

	"cosmossdk.io/math"

	"github.com/ethereum/go-ethereum/common"

	sdk "github.com/cosmos/cosmos-sdk/types"

	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// BankKeeper moves deposits into escrow, refunds and payouts out of it.
type BankKeeper interface {
	SendCoinsFromAccountToModule(ctx context.Context, sender sdk.AccAddress, recipientModule string, amt sdk.Coins) error
	SendCoinsFromModuleToAccount(ctx context.Context, senderModule string, recipient sdk.AccAddress, amt sdk.Coins) error
	SendCoinsFromModuleToModule(ctx context.Context, senderModule, recipientModule string, amt sdk.Coins) error
	SpendableCoin(ctx context.Context, addr sdk.AccAddress, denom string) sdk.Coin
	// SendCoins pays a wallet-signed message's relayer fee, renter to submitter.
	SendCoins(ctx context.Context, from, to sdk.AccAddress, amt sdk.Coins) error
	GetAllBalances(ctx context.Context, addr sdk.AccAddress) sdk.Coins
}

// ProviderKeeper is the part of x/provider the auction uses: who may act
// for a provider, whether it may serve, and what its leases did.
type ProviderKeeper interface {
	Provider(ctx context.Context, addr sdk.AccAddress) (providertypes.Provider, error)
	IsAuthorized(ctx context.Context, provider, signer sdk.AccAddress) (bool, error)
	Reliability(ctx context.Context, provider sdk.AccAddress) (uint32, error)
	RecordLeaseOutcome(ctx context.Context, provider sdk.AccAddress, outcome providertypes.LeaseOutcome) error
	RecordEpoch(ctx context.Context, provider sdk.AccAddress, proven bool) error
}

// OfferKeeper is the part of x/offer the auction uses: the market's
// currencies, a block's candidate walks (which also lease the GPUs),
// single-offer checks for bids, and freeing GPUs (x/offer/README.md
// documents each method).
type OfferKeeper interface {
	AcceptsDenom(ctx context.Context, denom string) (bool, error)
	NewWalks() offertypes.Walks
	Fit(ctx context.Context, offerID uint64, q offertypes.CandidateQuery) (offertypes.Candidate, bool, error)
	VacateGPUs(ctx context.Context, offerID uint64, uuids []string) error
}

// EvmVault is x/bridge's vault, set at wiring (Keeper.SetEvmVault), so
// x/auction does not import x/bridge.
type EvmVault interface {
	// Withdraw is the bridge's one withdrawal path: burn amt from sender
	// and add it to recipient's cumulative payout, or refuse with nothing
	// moved.
	Withdraw(ctx context.Context, sender sdk.AccAddress, recipient common.Address, amt sdk.Coin) (math.Int, error)
	// EVMDomain is the vault's EVM chain id and address (x/bridge's
	// evm_chain_id and vault_address): the EIP-712 domain wallet-signed
	// messages are signed under.
	EVMDomain(ctx context.Context) (chainID uint64, vault string, err error)
	// SetEVMDomain names the vault; used once, by x/auction's version 1 → 2
	// migration, which hands over the domain its params held.
	SetEVMDomain(ctx context.Context, chainID uint64, vault string) error
}
