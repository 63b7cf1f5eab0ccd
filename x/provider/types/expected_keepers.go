package types

import (
	"context"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// BankKeeper is the part of x/bank the module uses: stake moves between the
// operator and the module account, slashes pay the beneficiary and burn the rest.
type BankKeeper interface {
	SendCoinsFromAccountToModule(ctx context.Context, sender sdk.AccAddress, recipientModule string, amt sdk.Coins) error
	SendCoinsFromModuleToAccount(ctx context.Context, senderModule string, recipient sdk.AccAddress, amt sdk.Coins) error
	BurnCoins(ctx context.Context, moduleName string, amt sdk.Coins) error
	GetBalance(ctx context.Context, addr sdk.AccAddress, denom string) sdk.Coin
}

// GPUModelTable is the chain's table of known GPU models (x/settlement's
// gpu_models param, wired in by the app): the memory NVML reports for a
// model, and whether the table lists it at all.
type GPUModelTable interface {
	GPUModel(ctx context.Context, name string) (memoryMib uint64, known bool, err error)
}
