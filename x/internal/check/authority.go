package check

import (
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Authority checks that signer is the account allowed to change a module's
// params. An authority set in the consensus params (SDK v0.54 centralized
// authority) takes precedence over the keeper's; on a mismatch it returns
// errType wrapped with both addresses, so clients see the module's own code.
func Authority(ctx sdk.Context, keeperAuthority, signer string, errType *errorsmod.Error) error {
	expected := keeperAuthority
	if cp := ctx.ConsensusParams(); cp.Authority != nil && cp.Authority.Authority != "" {
		expected = cp.Authority.Authority
	}
	if signer != expected {
		return errType.Wrapf("expected %s, got %s", expected, signer)
	}
	return nil
}
