package payout

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Errors of signing and checking signatures, matching the vault's refusals.
var (
	ErrNotAValidator        = errors.New("payout: key is not in the validator set")
	ErrSignersNotIncreasing = errors.New("payout: signer indexes not strictly increasing")
	ErrSignerOutOfRange     = errors.New("payout: signer index out of range")
	ErrInvalidSignature     = errors.New("payout: invalid signature")
	ErrWrongSigner          = errors.New("payout: signature is not from the validator at its index")
	ErrInsufficientPower    = errors.New("payout: signatures carry no more than the threshold")
)

// secp256k1HalfN is the largest s the vault (OpenZeppelin's ECDSA) accepts.
var secp256k1HalfN = new(big.Int).Rsh(crypto.S256().Params().N, 1)

// Signature is one validator's signature in the vault's form: its index in
// the set and (v, r, s) with v 27 or 28 and s in the lower half of the order.
type Signature struct {
	Index uint32
	V     uint8
	R     [32]byte
	S     [32]byte
}

// SignedHash is what validators actually sign for digest: the EIP-191
// personal-message hash ("\x19Ethereum Signed Message:\n32" || digest), as
// OpenZeppelin's MessageHashUtils.toEthSignedMessageHash gives on chain, so a
// vault digest can never be a transaction or typed-data hash.
func SignedHash(digest common.Hash) common.Hash {
	return common.BytesToHash(accounts.TextHash(digest[:]))
}

// SignDigest signs digest (its EIP-191 hash) with key. go-ethereum signs
// deterministically (RFC 6979) with a low s.
func SignDigest(key *ecdsa.PrivateKey, digest common.Hash) (v uint8, r, s [32]byte, err error) {
	sig, err := crypto.Sign(SignedHash(digest).Bytes(), key)
	if err != nil {
		return 0, r, s, err
	}
	copy(r[:], sig[:32])
	copy(s[:], sig[32:64])
	return sig[64] + 27, r, s, nil
}

// Sign collects the signatures of keys over digest for submission against v:
// each key must be a validator of v, and the signatures come out in the
// strictly increasing index order the vault requires.
func (v Valset) Sign(digest common.Hash, keys ...*ecdsa.PrivateKey) ([]Signature, error) {
	sigs := make([]Signature, 0, len(keys))
	for _, key := range keys {
		addr := crypto.PubkeyToAddress(key.PublicKey)
		i := v.IndexOf(addr)
		if i < 0 {
			return nil, fmt.Errorf("%w: %s", ErrNotAValidator, addr)
		}
		sv, r, s, err := SignDigest(key, digest)
		if err != nil {
			return nil, err
		}
		sigs = append(sigs, Signature{Index: uint32(i), V: sv, R: r, S: s})
	}
	sort.Slice(sigs, func(a, b int) bool { return sigs[a].Index < sigs[b].Index })
	for i := 1; i < len(sigs); i++ {
		if sigs[i].Index == sigs[i-1].Index {
			return nil, fmt.Errorf("%w: %s signs twice", ErrSignersNotIncreasing, v.Validators[sigs[i].Index])
		}
	}
	return sigs, nil
}

// Recover returns the address that made sig over digest, refusing what the
// vault refuses: v other than 27 or 28, a zero r or s, s in the upper half.
func Recover(digest common.Hash, sig Signature) (common.Address, error) {
	if sig.V != 27 && sig.V != 28 {
		return common.Address{}, fmt.Errorf("%w: v = %d", ErrInvalidSignature, sig.V)
	}
	s := new(big.Int).SetBytes(sig.S[:])
	if s.Cmp(secp256k1HalfN) > 0 {
		return common.Address{}, fmt.Errorf("%w: s in the upper half", ErrInvalidSignature)
	}
	raw := make([]byte, 65)
	copy(raw[:32], sig.R[:])
	copy(raw[32:64], sig.S[:])
	raw[64] = sig.V - 27
	pub, err := crypto.SigToPub(SignedHash(digest).Bytes(), raw)
	if err != nil {
		return common.Address{}, fmt.Errorf("%w: %v", ErrInvalidSignature, err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// Verify checks sigs over digest against v as the vault does (every
// signature valid and from the validator at its index, indexes strictly
// increasing) and returns the power they carry; it fails with
// ErrInsufficientPower unless that is above PowerThreshold. A relayer runs
// it before paying gas for a submission the vault would refuse.
func (v Valset) Verify(digest common.Hash, sigs []Signature) (uint64, error) {
	var power uint64
	next := 0
	for pos, sig := range sigs {
		i := int(sig.Index)
		if i < next {
			return 0, fmt.Errorf("%w: at %d", ErrSignersNotIncreasing, pos)
		}
		if i >= len(v.Validators) {
			return 0, fmt.Errorf("%w: at %d, index %d", ErrSignerOutOfRange, pos, i)
		}
		next = i + 1
		signer, err := Recover(digest, sig)
		if err != nil {
			return 0, fmt.Errorf("at %d: %w", pos, err)
		}
		if signer != v.Validators[i] {
			return 0, fmt.Errorf("%w: at %d, %s signed for %s", ErrWrongSigner, pos, signer, v.Validators[i])
		}
		if i < len(v.Powers) {
			power += v.Powers[i]
		}
	}
	if power <= PowerThreshold {
		return power, fmt.Errorf("%w: %d <= %d", ErrInsufficientPower, power, PowerThreshold)
	}
	return power, nil
}
