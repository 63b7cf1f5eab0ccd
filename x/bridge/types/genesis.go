package types

import (
	"slices"

	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// NewTotals returns zero books.
func NewTotals() Totals {
	return Totals{Deposited: math.ZeroInt(), Withdrawn: math.ZeroInt(), Unbacked: math.ZeroInt()}
}

// DefaultGenesis is a bridged genesis: no supply of the bridged denom
// without a deposit behind it.
func DefaultGenesis() *GenesisState {
	return &GenesisState{Params: DefaultParams(), Totals: NewTotals()}
}

// Validate checks a genesis state before the chain starts: the params, the
// books (nothing negative, never more withdrawn than deposited), and that
// every record is well formed and unique. The bank supply is checked against
// the books by the module's invariant once the chain runs.
func (gs GenesisState) Validate() error {
	if err := gs.Params.Validate(); err != nil {
		return err
	}
	t := gs.Totals
	for _, f := range []struct {
		name string
		v    math.Int
	}{{"deposited", t.Deposited}, {"withdrawn", t.Withdrawn}, {"unbacked", t.Unbacked}} {
		if f.v.IsNil() || f.v.IsNegative() {
			return errorsmod.Wrapf(ErrInvalidGenesis, "totals.%s must be set and not negative", f.name)
		}
	}
	if t.Withdrawn.GT(t.Deposited) {
		return errorsmod.Wrapf(ErrInvalidGenesis, "withdrawn %s exceeds deposited %s", t.Withdrawn, t.Deposited)
	}
	seen := map[string]bool{}
	for _, s := range gs.Signers {
		if _, err := sdk.ValAddressFromBech32(s.Validator); err != nil {
			return errorsmod.Wrapf(ErrInvalidGenesis, "signer validator %q: %v", s.Validator, err)
		}
		if _, err := sdk.AccAddressFromBech32(s.Orchestrator); err != nil {
			return errorsmod.Wrapf(ErrInvalidGenesis, "signer orchestrator %q: %v", s.Orchestrator, err)
		}
		evm, err := ParseEvmAddress(s.EvmAddress)
		if err != nil {
			return errorsmod.Wrapf(ErrInvalidGenesis, "signer of %s: %v", s.Validator, err)
		}
		for _, k := range []string{"v" + s.Validator, "o" + s.Orchestrator, "e" + evm.Hex()} {
			if seen[k] {
				return errorsmod.Wrapf(ErrInvalidGenesis, "signer %s: %s registered twice", s.Validator, k[1:])
			}
			seen[k] = true
		}
	}
	sum := math.ZeroInt()
	for _, c := range gs.Cumulatives {
		if _, err := ParseEvmAddress(c.EvmAddress); err != nil {
			return errorsmod.Wrapf(ErrInvalidGenesis, "cumulative: %v", err)
		}
		if c.Amount.IsNil() || !c.Amount.IsPositive() {
			return errorsmod.Wrapf(ErrInvalidGenesis, "cumulative of %s must be positive", c.EvmAddress)
		}
		sum = sum.Add(c.Amount)
	}
	if !sum.Equal(t.Withdrawn) {
		return errorsmod.Wrapf(ErrInvalidGenesis, "cumulatives sum to %s, totals.withdrawn is %s", sum, t.Withdrawn)
	}
	if err := validateUnbackedHolders(gs.UnbackedHolders, t.Unbacked); err != nil {
		return err
	}
	for _, v := range gs.Valsets {
		if v.Nonce == 0 || v.Nonce > gs.Progress.LastValsetNonce {
			return errorsmod.Wrapf(ErrInvalidGenesis, "valset nonce %d outside 1..%d", v.Nonce, gs.Progress.LastValsetNonce)
		}
	}
	for _, r := range gs.Roots {
		if r.Epoch == 0 || r.Epoch > gs.Progress.LastEpoch {
			return errorsmod.Wrapf(ErrInvalidGenesis, "root epoch %d outside 1..%d", r.Epoch, gs.Progress.LastEpoch)
		}
		if r.TotalCumulative.IsNil() || r.TotalCumulative.GT(t.Withdrawn) {
			return errorsmod.Wrapf(ErrInvalidGenesis, "root %d total above withdrawn", r.Epoch)
		}
	}
	for _, d := range gs.Deposits {
		if d.Claim.Nonce == 0 || d.Claim.Nonce > gs.Progress.LastCreditedNonce {
			return errorsmod.Wrapf(ErrInvalidGenesis, "deposit nonce %d outside 1..%d", d.Claim.Nonce, gs.Progress.LastCreditedNonce)
		}
	}
	for _, v := range append(slices.Clip(gs.Votes), gs.VoteHistory...) {
		if err := v.Claim.Validate(); err != nil {
			return errorsmod.Wrapf(ErrInvalidGenesis, "vote of %s: %v", v.Validator, err)
		}
	}
	return validateEquivocationRecords(gs.SignerKeys, gs.Equivocations)
}

// validateUnbackedHolders: each holder once, with a positive amount, and
// together exactly totals.unbacked. That each holds that much is checked
// against the bank at InitGenesis.
func validateUnbackedHolders(holders []UnbackedHolder, total math.Int) error {
	seen := make(map[string]bool, len(holders))
	sum := math.ZeroInt()
	for _, h := range holders {
		addr, err := sdk.AccAddressFromBech32(h.Address)
		if err != nil {
			return errorsmod.Wrapf(ErrInvalidGenesis, "unbacked holder %q: %v", h.Address, err)
		}
		if seen[string(addr)] {
			return errorsmod.Wrapf(ErrInvalidGenesis, "unbacked holder %s declared twice", h.Address)
		}
		seen[string(addr)] = true
		if h.Amount.IsNil() || !h.Amount.IsPositive() {
			return errorsmod.Wrapf(ErrInvalidGenesis, "unbacked amount of %s must be positive", h.Address)
		}
		sum = sum.Add(h.Amount)
	}
	if !sum.Equal(total) {
		return errorsmod.Wrapf(ErrInvalidGenesis, "unbacked holders sum to %s, totals.unbacked is %s", sum, total)
	}
	return nil
}
