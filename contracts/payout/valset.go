package payout

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum/common"
)

// The vault's power rules (SettlementVault.POWER_TOTAL, POWER_THRESHOLD,
// MAX_VALIDATORS).
const (
	// PowerTotal is what a normalised set's powers sum to at most.
	PowerTotal uint64 = 1 << 32
	// PowerThreshold is two thirds of PowerTotal, rounded down: signatures
	// must carry strictly more.
	PowerThreshold uint64 = 2_863_311_530
	// MaxValidators is the largest set the vault takes.
	MaxValidators = 256
)

// Errors of a validator set, matching the vault's refusals.
var (
	ErrEmptyValset          = errors.New("payout: empty validator set")
	ErrTooManyValidators    = errors.New("payout: too many validators")
	ErrValsetLengthMismatch = errors.New("payout: validators and powers differ in length")
	ErrZeroValidator        = errors.New("payout: zero validator address")
	ErrValidatorsNotSorted  = errors.New("payout: validators not strictly increasing")
	ErrZeroPower            = errors.New("payout: validator with zero power")
	ErrPowerAboveTotal      = errors.New("payout: powers sum above PowerTotal")
	ErrPowerBelowThreshold  = errors.New("payout: powers sum to no more than the threshold")
)

// Valset is the appchain's validator set as the vault holds it: EVM signing
// addresses strictly increasing, each with its normalised power, and the
// set's nonce.
type Valset struct {
	Validators []common.Address
	Powers     []uint64
	Nonce      uint64
}

// Member is one validator before normalisation: its EVM signing address and
// its voting power on the appchain, in any unit.
type Member struct {
	Address common.Address
	Power   uint64
}

// NewValset builds the vault's view of a validator set: members sorted by
// address, each power scaled to its share of PowerTotal, rounded down. A
// member whose share rounds to zero (less than one part in 2^32) is left
// out, as the vault refuses zero power; the set still passes the threshold
// with every remaining member's signature. Duplicated addresses are refused.
func NewValset(nonce uint64, members []Member) (Valset, error) {
	total := new(big.Int)
	for _, m := range members {
		total.Add(total, new(big.Int).SetUint64(m.Power))
	}
	return NewValsetOfTotal(nonce, members, total)
}

// NewValsetOfTotal is NewValset with shares of total rather than of the
// members' sum: the appchain passes its whole bonded power, so validators
// without a registered signer count as absent, never as if their power
// belonged to the others. The set must still carry more than the threshold.
func NewValsetOfTotal(nonce uint64, members []Member, total *big.Int) (Valset, error) {
	ms := append([]Member(nil), members...)
	sort.Slice(ms, func(i, j int) bool { return bytes.Compare(ms[i].Address[:], ms[j].Address[:]) < 0 })
	sum := new(big.Int)
	for i, m := range ms {
		if i > 0 && m.Address == ms[i-1].Address {
			return Valset{}, fmt.Errorf("%w: %s appears twice", ErrValidatorsNotSorted, m.Address)
		}
		sum.Add(sum, new(big.Int).SetUint64(m.Power))
	}
	if total == nil || total.Sign() == 0 || sum.Sign() == 0 {
		return Valset{}, ErrEmptyValset
	}
	if sum.Cmp(total) > 0 {
		return Valset{}, fmt.Errorf("%w: members hold %s of %s", ErrPowerAboveTotal, sum, total)
	}
	v := Valset{Nonce: nonce}
	scale := new(big.Int).SetUint64(PowerTotal)
	for _, m := range ms {
		p := new(big.Int).SetUint64(m.Power)
		p.Mul(p, scale).Quo(p, total)
		if p.Sign() == 0 {
			continue
		}
		v.Validators = append(v.Validators, m.Address)
		v.Powers = append(v.Powers, p.Uint64())
	}
	return v, v.Validate()
}

// Validate applies the vault's rules for a set (SettlementVault._validateValset).
func (v Valset) Validate() error {
	n := len(v.Validators)
	switch {
	case n == 0:
		return ErrEmptyValset
	case n > MaxValidators:
		return fmt.Errorf("%w: %d > %d", ErrTooManyValidators, n, MaxValidators)
	case len(v.Powers) != n:
		return fmt.Errorf("%w: %d validators, %d powers", ErrValsetLengthMismatch, n, len(v.Powers))
	case v.Validators[0] == (common.Address{}):
		return ErrZeroValidator
	}
	var total uint64
	for i := range n {
		if i > 0 && bytes.Compare(v.Validators[i][:], v.Validators[i-1][:]) <= 0 {
			return fmt.Errorf("%w: at %d", ErrValidatorsNotSorted, i)
		}
		if v.Powers[i] == 0 {
			return fmt.Errorf("%w: at %d", ErrZeroPower, i)
		}
		if v.Powers[i] > PowerTotal || total+v.Powers[i] > PowerTotal {
			return fmt.Errorf("%w: at %d", ErrPowerAboveTotal, i)
		}
		total += v.Powers[i]
	}
	if total <= PowerThreshold {
		return fmt.Errorf("%w: %d <= %d", ErrPowerBelowThreshold, total, PowerThreshold)
	}
	return nil
}

// TotalPower is the sum of the set's powers.
func (v Valset) TotalPower() uint64 {
	var total uint64
	for _, p := range v.Powers {
		total += p
	}
	return total
}

// IndexOf returns the position of addr in the set, or -1.
func (v Valset) IndexOf(addr common.Address) int {
	i := sort.Search(len(v.Validators), func(i int) bool {
		return bytes.Compare(v.Validators[i][:], addr[:]) >= 0
	})
	if i < len(v.Validators) && v.Validators[i] == addr {
		return i
	}
	return -1
}
