package types

import (
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Every message's ValidateBasic runs the msg server's stateless rules (the
// same functions) before any state is read: baseapp runs it in CheckTx, so
// a malformed message is refused before its fee is taken, and the CLI runs
// it before it signs. The audit and proof messages keep theirs beside
// their rules (audit.go, proof.go).

// ValidateBasic checks the reporter, the sample and the path's shape; the
// keeper checks them against the stored proof.
func (m *MsgReportFraud) ValidateBasic() error {
	if err := validSigner("reporter", m.Reporter); err != nil {
		return err
	}
	if err := m.Sample.Validate(); err != nil {
		return err
	}
	return ValidateMerklePath(m.Path)
}

// ValidateBasic checks the operator and the denoms named.
func (m *MsgClaimRewards) ValidateBasic() error {
	if err := validSigner("operator", m.Operator); err != nil {
		return err
	}
	return ValidateRewardDenoms(m.Denoms)
}

// ValidateBasic checks the authority's address and the params on their own.
func (m *MsgUpdateParams) ValidateBasic() error {
	if _, err := sdk.AccAddressFromBech32(m.Authority); err != nil {
		return errorsmod.Wrapf(ErrInvalidAuthority, "authority %q: %v", m.Authority, err)
	}
	return m.Params.Validate()
}

// ValidateRewardDenoms checks the denoms a claim names: each a valid denom.
func ValidateRewardDenoms(denoms []string) error {
	for _, d := range denoms {
		if err := sdk.ValidateDenom(d); err != nil {
			return errorsmod.Wrapf(ErrNoRewards, "denom %q: %v", d, err)
		}
	}
	return nil
}

// validSigner checks an account field as the msg server does: a malformed
// signer is not the provider's operator or agent.
func validSigner(field, s string) error {
	if _, err := sdk.AccAddressFromBech32(s); err != nil {
		return errorsmod.Wrapf(ErrUnauthorized, "%s: %v", field, err)
	}
	return nil
}
