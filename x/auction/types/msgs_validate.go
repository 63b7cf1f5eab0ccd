package types

import (
	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Every message's ValidateBasic runs the msg server's stateless rules (the
// same functions) before any state is read: baseapp runs it in CheckTx, so
// a malformed message is refused before its fee is taken, and the CLI runs
// it before it signs. The msg server still checks everything, params and
// state included.

// ValidateBasic checks the renter and the spec without params.
func (m *MsgPostJob) ValidateBasic() error {
	if err := validAddress("renter", m.Renter); err != nil {
		return err
	}
	return m.Spec.ValidateBasic()
}

// ValidateBasic checks the renter.
func (m *MsgCancelJob) ValidateBasic() error { return validAddress("renter", m.Renter) }

// ValidateBasic checks the addresses, the price and that the bid names at
// least one GPU; the keeper checks both against the job and the offer.
func (m *MsgPlaceBid) ValidateBasic() error {
	if err := validBidder(m.Signer, m.Provider); err != nil {
		return err
	}
	if err := ValidatePrice(m.Price); err != nil {
		return err
	}
	if m.GpuCount == 0 {
		return errorsmod.Wrap(ErrInvalidGPUCount, "a bid of 0 GPUs")
	}
	return nil
}

// ValidateBasic checks the addresses.
func (m *MsgWithdrawBid) ValidateBasic() error { return validBidder(m.Signer, m.Provider) }

// ValidateBasic checks the signer.
func (m *MsgStartLease) ValidateBasic() error { return validAddress("signer", m.Signer) }

// ValidateBasic checks the signer and the reason.
func (m *MsgCloseLease) ValidateBasic() error {
	if err := validAddress("signer", m.Signer); err != nil {
		return err
	}
	return ValidateReason(m.Reason)
}

// ValidateBasic checks the signer and the reason.
func (m *MsgPreemptLease) ValidateBasic() error {
	if err := validAddress("signer", m.Signer); err != nil {
		return err
	}
	return ValidateReason(m.Reason)
}

// ValidateBasic checks the authority's address and the params on their own.
func (m *MsgUpdateParams) ValidateBasic() error {
	if _, err := sdk.AccAddressFromBech32(m.Authority); err != nil {
		return errorsmod.Wrapf(ErrInvalidAuthority, "authority %q: %s", m.Authority, err)
	}
	return m.Params.Validate()
}

// ValidateBasic checks what a signed job carries besides the chain, domain,
// deadline and nonce: the renter (a 20-byte wallet account, as the hash
// requires), the spec without params, the relayer fee and the signature's form.
func (m *MsgSubmitSignedJob) ValidateBasic() error {
	bid := m.Bid
	renter, err := accAddress("renter", bid.Renter)
	if err != nil {
		return err
	}
	if err := bid.Spec.ValidateBasic(); err != nil {
		return err
	}
	if _, err := JobBidHash(bid, renter); err != nil { // a max relayer fee that is a uint256, too
		return err
	}
	return validRelay(m.Submitter, bid.VerifyingContract, m.Signature, m.RelayerFee, bid.MaxRelayerFee)
}

// ValidateBasic checks a signed cancel as MsgSubmitSignedJob's.
func (m *MsgSubmitSignedCancel) ValidateBasic() error {
	a := m.Auth
	renter, err := accAddress("renter", a.Renter)
	if err != nil {
		return err
	}
	if _, err := CancelJobHash(a, renter); err != nil {
		return err
	}
	if err := a.MaxRelayerFee.Validate(); err != nil {
		return errorsmod.Wrapf(ErrInvalidSignedMsg, "max relayer fee: %v", err)
	}
	return validRelay(m.Submitter, a.VerifyingContract, m.Signature, m.RelayerFee, a.MaxRelayerFee.Amount)
}

// ValidateBasic checks a signed close as MsgSubmitSignedJob's, and its reason.
func (m *MsgSubmitSignedClose) ValidateBasic() error {
	a := m.Auth
	renter, err := accAddress("renter", a.Renter)
	if err != nil {
		return err
	}
	if err := ValidateReason(a.Reason); err != nil {
		return err
	}
	if _, err := CloseLeaseHash(a, renter); err != nil {
		return err
	}
	if err := a.MaxRelayerFee.Validate(); err != nil {
		return errorsmod.Wrapf(ErrInvalidSignedMsg, "max relayer fee: %v", err)
	}
	return validRelay(m.Submitter, a.VerifyingContract, m.Signature, m.RelayerFee, a.MaxRelayerFee.Amount)
}

// ValidateBasic checks a signed withdrawal as MsgSubmitSignedJob's, and a
// positive amount (its denom and minimum are x/bridge's params, checked by
// the keeper).
func (m *MsgSubmitSignedWithdraw) ValidateBasic() error {
	a := m.Auth
	renter, err := accAddress("renter", a.Renter)
	if err != nil {
		return err
	}
	if _, err := WithdrawHash(a, renter); err != nil {
		return err
	}
	if err := a.Amount.Validate(); err != nil || !a.Amount.IsPositive() {
		return errorsmod.Wrapf(ErrInvalidSignedMsg, "amount %s: want a positive coin", a.Amount)
	}
	if err := a.MaxRelayerFee.Validate(); err != nil {
		return errorsmod.Wrapf(ErrInvalidSignedMsg, "max relayer fee: %v", err)
	}
	return validRelay(m.Submitter, a.VerifyingContract, m.Signature, m.RelayerFee, a.MaxRelayerFee.Amount)
}

// ValidateRelayerFee checks the fee a submitter asks: not negative, and at
// most the maximum the renter signed.
func ValidateRelayerFee(asked, maxFee sdkmath.Int) error {
	if asked.IsNil() || asked.IsNegative() {
		return errorsmod.Wrap(ErrInvalidSignedMsg, "relayer fee must not be negative")
	}
	if maxFee.IsNil() || asked.GT(maxFee) {
		return errorsmod.Wrapf(ErrRelayerFeeTooHigh, "asked %s, the renter allowed %s", asked, maxFee)
	}
	return nil
}

// validRelay checks the parts every wallet-signed message shares: the
// submitter, the signed contract's form, the signature's and the fee.
func validRelay(submitter, contract string, sig []byte, asked, maxFee sdkmath.Int) error {
	if err := validAddress("submitter", submitter); err != nil {
		return err
	}
	if _, err := ParseEVMAddress(contract); err != nil {
		return err
	}
	if err := ValidateWalletSignature(sig); err != nil {
		return err
	}
	return ValidateRelayerFee(asked, maxFee)
}

func validBidder(signer, provider string) error {
	if err := validAddress("signer", signer); err != nil {
		return err
	}
	return validAddress("provider", provider)
}

// validAddress checks a bech32 account field under the chain's prefix (the
// SDK's global config, which the app sets at start).
func validAddress(field, s string) error {
	_, err := accAddress(field, s)
	return err
}

func accAddress(field, s string) (sdk.AccAddress, error) {
	addr, err := sdk.AccAddressFromBech32(s)
	if err != nil {
		return nil, errorsmod.Wrapf(ErrInvalidAddress, "%s %q: %s", field, s, err)
	}
	return addr, nil
}
