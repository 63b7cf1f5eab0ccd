package types

import (
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// Every message's ValidateBasic runs the msg server's stateless rules (the
// same functions) before any state is read: baseapp runs it in CheckTx, so
// a malformed message is refused before its fee is taken, and the CLI runs
// it before it signs. The msg server still checks everything, params,
// block time and state included.

// ValidateBasic checks the addresses, the GPU list (at most the
// max_gpus_per_offer no params may exceed), the terms without params, and
// the region when one is given.
func (m *MsgCreateOffer) ValidateBasic() error {
	if err := validAddress("signer", m.Signer); err != nil {
		return err
	}
	if err := validAddress("provider", m.Provider); err != nil {
		return err
	}
	if err := ValidateGPUList(m.GpuUuids, check.MaxGPUsPerLease); err != nil {
		return err
	}
	if err := m.Terms.ValidateBasic(); err != nil {
		return err
	}
	if m.Region == "" { // the provider's region, from state
		return nil
	}
	if err := providertypes.ValidateRegion(m.Region); err != nil {
		return errorsmod.Wrap(ErrInvalidRegion, err.Error())
	}
	return nil
}

// ValidateBasic checks the signer, the terms without params and the status
// asked for.
func (m *MsgUpdateOffer) ValidateBasic() error {
	if err := validAddress("signer", m.Signer); err != nil {
		return err
	}
	if err := m.Terms.ValidateBasic(); err != nil {
		return err
	}
	return ValidateStatusChange(m.Status)
}

// ValidateBasic checks the signer.
func (m *MsgCloseOffer) ValidateBasic() error { return validAddress("signer", m.Signer) }

// ValidateBasic checks the authority's address and the params on their own.
func (m *MsgUpdateParams) ValidateBasic() error {
	if _, err := sdk.AccAddressFromBech32(m.Authority); err != nil {
		return errorsmod.Wrapf(ErrInvalidAuthority, "authority %q: %s", m.Authority, err)
	}
	return m.Params.Validate()
}

// ValidateStatusChange allows what an update may ask: no change, OPEN or
// PAUSED (closing is MsgCloseOffer's).
func ValidateStatusChange(s OfferStatus) error {
	switch s {
	case OFFER_STATUS_UNSPECIFIED, OFFER_STATUS_OPEN, OFFER_STATUS_PAUSED:
		return nil
	}
	return errorsmod.Wrapf(ErrInvalidStatus, "%s: an update may only OPEN or PAUSE (close with MsgCloseOffer)", s)
}

// validAddress checks a bech32 account field under the chain's prefix (the
// SDK's global config, which the app sets at start).
func validAddress(field, s string) error {
	if _, err := sdk.AccAddressFromBech32(s); err != nil {
		return errorsmod.Wrapf(ErrInvalidAddress, "%s %q: %s", field, s, err)
	}
	return nil
}
