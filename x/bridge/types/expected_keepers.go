package types

import (
	"context"

	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	stakingtypes "github.com/cosmos/cosmos-sdk/x/staking/types"
)

// StakingKeeper is the part of x/staking the bridge reads: the bonded
// validators and their power as of the last block (what CometBFT uses).
type StakingKeeper interface {
	GetLastTotalPower(ctx context.Context) (math.Int, error)
	GetLastValidatorPower(ctx context.Context, operator sdk.ValAddress) (int64, error)
	IterateLastValidatorPowers(ctx context.Context, handler func(operator sdk.ValAddress, power int64) (stop bool)) error
	GetValidator(ctx context.Context, addr sdk.ValAddress) (stakingtypes.Validator, error)
}

// BankKeeper mints credited deposits and burns withdrawals.
type BankKeeper interface {
	MintCoins(ctx context.Context, moduleName string, amt sdk.Coins) error
	BurnCoins(ctx context.Context, moduleName string, amt sdk.Coins) error
	SendCoinsFromModuleToAccount(ctx context.Context, senderModule string, recipient sdk.AccAddress, amt sdk.Coins) error
	SendCoinsFromAccountToModule(ctx context.Context, sender sdk.AccAddress, recipientModule string, amt sdk.Coins) error
	SpendableCoin(ctx context.Context, addr sdk.AccAddress, denom string) sdk.Coin
	GetSupply(ctx context.Context, denom string) sdk.Coin
	BlockedAddr(addr sdk.AccAddress) bool
}

// AuctionKeeper names the vault: x/auction's EIP-712 domain is the vault's
// chain id and address.
type AuctionKeeper interface {
	EVMDomain(ctx context.Context) (chainID uint64, vault string, err error)
}
