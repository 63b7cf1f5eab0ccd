package types

import (
	"strings"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/contracts/payout"
)

// Every message's ValidateBasic runs the msg server's stateless rules (the
// same functions) before any state is read: baseapp runs it in CheckTx, so
// a malformed message is refused before its fee is taken, and the CLI runs
// it before it signs. The msg server still checks everything, params and
// state included.

// ValidateBasic checks the addresses, the EVM signer and the proof's form;
// the keeper checks the proof's signature over this chain's digest.
func (m *MsgRegisterEvmSigner) ValidateBasic() error {
	if err := validAddress("operator", m.Operator); err != nil {
		return err
	}
	if err := validAddress("orchestrator", m.Orchestrator); err != nil {
		return err
	}
	if _, err := ParseEvmAddress(m.EvmAddress); err != nil {
		return err
	}
	_, err := VaultSignature(0, m.Proof)
	return err
}

// ValidateBasic checks the orchestrator and the claim the message makes.
func (m *MsgAttestDeposit) ValidateBasic() error {
	if err := validAddress("orchestrator", m.Orchestrator); err != nil {
		return err
	}
	_, err := m.Claim()
	return err
}

// ValidateBasic checks the orchestrator and the signature's form.
func (m *MsgConfirmValset) ValidateBasic() error {
	if err := validAddress("orchestrator", m.Orchestrator); err != nil {
		return err
	}
	_, err := VaultSignature(0, m.Signature)
	return err
}

// ValidateBasic checks the orchestrator and the signature's form.
func (m *MsgConfirmRoot) ValidateBasic() error {
	if err := validAddress("orchestrator", m.Orchestrator); err != nil {
		return err
	}
	_, err := VaultSignature(0, m.Signature)
	return err
}

// ValidateBasic checks the sender, the EVM recipient and that the amount is
// a positive coin; the keeper checks its denom and the minimum.
func (m *MsgWithdrawToEvm) ValidateBasic() error {
	if err := validAddress("sender", m.Sender); err != nil {
		return err
	}
	if _, err := ParseEvmAddress(m.EvmRecipient); err != nil {
		return err
	}
	if m.Amount.Validate() != nil || !m.Amount.IsPositive() {
		return errorsmod.Wrapf(ErrInvalidAmount, "withdraw %s: want a positive amount of a valid denom", m.Amount)
	}
	return nil
}

// ValidateBasic checks the orchestrator and that a nonce is named.
func (m *MsgRevokeAttestation) ValidateBasic() error {
	if err := validAddress("orchestrator", m.Orchestrator); err != nil {
		return err
	}
	if m.Nonce == 0 {
		return errorsmod.Wrap(ErrInvalidClaim, "nonce starts at 1")
	}
	return nil
}

// ValidateBasic checks the submitter and the evidence's form: an epoch and
// valset from 1, a 32-byte root, a total that is a uint256 and a 65-byte
// signature; the keeper recovers the signer and judges the evidence.
func (m *MsgSubmitRootEvidence) ValidateBasic() error {
	if err := validAddress("submitter", m.Submitter); err != nil {
		return err
	}
	if m.Epoch == 0 || m.ValsetNonce == 0 {
		return errorsmod.Wrapf(ErrNotProvable, "epoch %d, valset %d: both start at 1", m.Epoch, m.ValsetNonce)
	}
	if _, err := ParseHash32(m.Root); err != nil {
		return errorsmod.Wrapf(ErrNotProvable, "root: %s", err)
	}
	if m.TotalCumulative.IsNil() || m.TotalCumulative.IsNegative() || m.TotalCumulative.BigInt().BitLen() > 256 {
		return errorsmod.Wrap(ErrNotProvable, "total_cumulative must be a uint256")
	}
	_, err := VaultSignature(0, m.Signature)
	return err
}

// ValidateBasic checks the submitter and the evidence's form: a nonce from
// 1, at most payout.MaxValidators EVM addresses with a power each, and a
// 65-byte signature; the keeper recovers the signer and judges the evidence.
func (m *MsgSubmitValsetEvidence) ValidateBasic() error {
	if err := validAddress("submitter", m.Submitter); err != nil {
		return err
	}
	if m.Nonce == 0 {
		return errorsmod.Wrap(ErrNotProvable, "valset nonce starts at 1")
	}
	if len(m.Validators) != len(m.Powers) || len(m.Validators) > payout.MaxValidators {
		return errorsmod.Wrapf(ErrNotProvable, "%d validators, %d powers: want one power each, at most %d",
			len(m.Validators), len(m.Powers), payout.MaxValidators)
	}
	for _, v := range m.Validators {
		if _, err := ParseEvmAddress(v); err != nil {
			return errorsmod.Wrapf(ErrNotProvable, "validator: %s", err)
		}
	}
	_, err := VaultSignature(0, m.Signature)
	return err
}

// ValidateBasic checks the authority's address and the params on their own.
func (m *MsgUpdateParams) ValidateBasic() error {
	if _, err := sdk.AccAddressFromBech32(m.Authority); err != nil {
		return errorsmod.Wrapf(ErrInvalidAuthority, "authority %q: %v", m.Authority, err)
	}
	return m.Params.Validate()
}

// Claim is the claim an attestation makes, canonical (checksummed
// addresses, lower-case hash) so honest orchestrators' claims are
// byte-identical, and valid on its own.
func (m *MsgAttestDeposit) Claim() (DepositClaim, error) {
	// %s, not %v: errorsmod's %v appends the source file to what clients read.
	sender, err := ParseEvmAddress(m.EvmSender)
	if err != nil {
		return DepositClaim{}, errorsmod.Wrapf(ErrInvalidClaim, "evm_sender: %s", err)
	}
	recipient, err := ParseEvmAddress(m.EvmRecipient)
	if err != nil {
		return DepositClaim{}, errorsmod.Wrapf(ErrInvalidClaim, "evm_recipient: %s", err)
	}
	c := DepositClaim{
		Nonce:          m.Nonce,
		EvmSender:      sender.Hex(),
		Recipient:      sdk.AccAddress(recipient.Bytes()).String(),
		Amount:         m.Amount,
		EvmBlockNumber: m.EvmBlockNumber,
		EvmTxHash:      strings.ToLower(m.EvmTxHash),
		EvmBlockHash:   strings.ToLower(m.EvmBlockHash),
	}
	return c, c.Validate()
}

// validAddress checks a bech32 account field under the chain's prefix (the
// SDK's global config, which the app sets at start).
func validAddress(field, s string) error {
	if _, err := sdk.AccAddressFromBech32(s); err != nil {
		return errorsmod.Wrapf(ErrInvalidAddress, "%s: %v", field, err)
	}
	return nil
}
