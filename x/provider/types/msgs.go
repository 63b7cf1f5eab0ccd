package types

import (
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Every message's ValidateBasic runs the msg server's stateless rules (the
// same functions) before any state is read: baseapp runs it in CheckTx, so
// a malformed message is refused before its fee is taken, and the CLI runs
// it before it signs. The msg server still checks everything, params and
// state included.

// ValidateBasic checks the operator, the description and the agent list;
// the keeper bounds the list by max_agents.
func (m *MsgRegisterProvider) ValidateBasic() error {
	return validateProviderFields(m.Operator, m.Moniker, m.Region, m.Endpoint, m.TlsCertSha256, m.Agents)
}

// ValidateBasic checks the operator, the description and the agent list.
func (m *MsgUpdateProvider) ValidateBasic() error {
	return validateProviderFields(m.Operator, m.Moniker, m.Region, m.Endpoint, m.TlsCertSha256, m.Agents)
}

// ValidateBasic checks the addresses and each GPU's inventory, each listed
// once; the keeper checks the count against the params and the models
// against the GPU model table.
func (m *MsgRegisterGPUs) ValidateBasic() error {
	if err := validAddress("signer", m.Signer); err != nil {
		return err
	}
	if err := validAddress("provider", m.Provider); err != nil {
		return err
	}
	if len(m.Gpus) == 0 {
		return errorsmod.Wrap(ErrTooManyGPUs, "a message carries at least 1 GPU, got 0")
	}
	seen := make(map[string]bool, len(m.Gpus))
	for _, g := range m.Gpus {
		if err := g.Validate(); err != nil {
			return err
		}
		if seen[g.Uuid] {
			return errorsmod.Wrapf(ErrDuplicateGPU, "%s listed twice", g.Uuid)
		}
		seen[g.Uuid] = true
	}
	return nil
}

// ValidateBasic checks the addresses and the UUID's form.
func (m *MsgDeregisterGPU) ValidateBasic() error {
	if err := validAddress("signer", m.Signer); err != nil {
		return err
	}
	if err := validAddress("provider", m.Provider); err != nil {
		return err
	}
	return ValidateGPUUUID(m.Uuid)
}

// ValidateBasic checks the operator and that the amount is a positive coin;
// the keeper checks its denom against the params.
func (m *MsgBond) ValidateBasic() error {
	if err := validAddress("operator", m.Operator); err != nil {
		return err
	}
	return ValidateStakeCoin(m.Amount)
}

// ValidateBasic checks the operator and the amount, as MsgBond's.
func (m *MsgUnbond) ValidateBasic() error {
	if err := validAddress("operator", m.Operator); err != nil {
		return err
	}
	return ValidateStakeCoin(m.Amount)
}

// ValidateBasic checks the operator.
func (m *MsgUnjail) ValidateBasic() error { return validAddress("operator", m.Operator) }

// ValidateBasic checks the authority's address and the params on their own.
func (m *MsgUpdateParams) ValidateBasic() error {
	if _, err := sdk.AccAddressFromBech32(m.Authority); err != nil {
		return errorsmod.Wrapf(ErrInvalidAuthority, "authority %q: %v", m.Authority, err)
	}
	return m.Params.Validate()
}

// ValidateStakeCoin checks a bond or unbond amount on its own: a denom
// given (without one the positivity check would print "100: must be
// positive") and a positive amount.
func ValidateStakeCoin(c sdk.Coin) error {
	if c.Denom == "" {
		amount := "0"
		if !c.Amount.IsNil() {
			amount = c.Amount.String()
		}
		return errorsmod.Wrapf(ErrInvalidStake, "amount %s has no denom: write it like %s%s", amount, amount, sdk.DefaultBondDenom)
	}
	if c.Validate() != nil || !c.IsPositive() {
		return errorsmod.Wrapf(ErrInvalidStake, "%s: must be positive", c)
	}
	return nil
}

func validateProviderFields(operator, moniker, region, endpoint, certHash string, agents []string) error {
	if err := validAddress("operator", operator); err != nil {
		return err
	}
	if err := ValidateDescription(moniker, region, endpoint, certHash); err != nil {
		return err
	}
	return ValidateAgentList(operator, agents, decodeAccount)
}

// validAddress checks a bech32 account field under the chain's prefix (the
// SDK's global config, which the app sets at start).
func validAddress(field, s string) error {
	if _, err := decodeAccount(s); err != nil {
		return errorsmod.Wrapf(ErrInvalidAddress, "%s %q: %v", field, s, err)
	}
	return nil
}

func decodeAccount(s string) ([]byte, error) { return sdk.AccAddressFromBech32(s) }
