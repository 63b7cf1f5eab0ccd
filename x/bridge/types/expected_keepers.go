package types

import (
	"context"
	"time"

	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	slashingtypes "github.com/cosmos/cosmos-sdk/x/slashing/types"
	stakingtypes "github.com/cosmos/cosmos-sdk/x/staking/types"
)

// StakingKeeper is the part of x/staking the bridge reads: the bonded
// validators and their power as of the last block (what CometBFT uses).
type StakingKeeper interface {
	GetLastTotalPower(ctx context.Context) (math.Int, error)
	GetLastValidatorPower(ctx context.Context, operator sdk.ValAddress) (int64, error)
	IterateLastValidatorPowers(ctx context.Context, handler func(operator sdk.ValAddress, power int64) (stop bool)) error
	GetValidator(ctx context.Context, addr sdk.ValAddress) (stakingtypes.Validator, error)
	PowerReduction(ctx context.Context) math.Int
}

// SlashingKeeper punishes a proven bridge equivocation the way x/evidence
// punishes a double sign: slash at the infraction's power, jail, and keep
// the validator jailed for the downtime jail duration.
type SlashingKeeper interface {
	SlashWithInfractionReason(ctx context.Context, consAddr sdk.ConsAddress, fraction math.LegacyDec, power, distributionHeight int64, infraction stakingtypes.Infraction) error
	Jail(ctx context.Context, consAddr sdk.ConsAddress) error
	JailUntil(ctx context.Context, consAddr sdk.ConsAddress, jailTime time.Time) error
	DowntimeJailDuration(ctx context.Context) (time.Duration, error)
	GetValidatorSigningInfo(ctx context.Context, consAddr sdk.ConsAddress) (slashingtypes.ValidatorSigningInfo, error)
}

// BankKeeper mints credited deposits and burns withdrawals; balances bound
// what of a holder's coins is unbacked.
type BankKeeper interface {
	MintCoins(ctx context.Context, moduleName string, amt sdk.Coins) error
	BurnCoins(ctx context.Context, moduleName string, amt sdk.Coins) error
	SendCoinsFromModuleToAccount(ctx context.Context, senderModule string, recipient sdk.AccAddress, amt sdk.Coins) error
	SendCoinsFromAccountToModule(ctx context.Context, sender sdk.AccAddress, recipientModule string, amt sdk.Coins) error
	SpendableCoin(ctx context.Context, addr sdk.AccAddress, denom string) sdk.Coin
	GetBalance(ctx context.Context, addr sdk.AccAddress, denom string) sdk.Coin
	// IterateAllBalances is used once, by the version-1 → 2 migration.
	IterateAllBalances(ctx context.Context, cb func(addr sdk.AccAddress, coin sdk.Coin) (stop bool))
	GetSupply(ctx context.Context, denom string) sdk.Coin
	BlockedAddr(addr sdk.AccAddress) bool
}
