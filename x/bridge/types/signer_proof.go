package types

import (
	"crypto/ecdsa"
	"encoding/binary"

	errorsmod "cosmossdk.io/errors"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/idlegpu/idlegpu/contracts/payout"
)

// signerProofTag separates the proof of possession from every other digest
// an orchestrator's key signs (valset checkpoints, root digests).
var signerProofTag = crypto.Keccak256Hash([]byte("idlegpu.bridge.signer.v1"))

// SignerProofDigest is what an EVM key signs to be registered as a
// validator's signer: keccak256(tag ‖ len ‖ chain id ‖ len ‖ validator ‖ len
// ‖ orchestrator ‖ evm address), each string length-prefixed (8 bytes, big
// endian) so no two registrations share a digest. Binding the chain id and
// the validator keeps a proof from being replayed on another chain or by
// another validator; binding the address keeps the signer from being paired
// with a key it does not hold.
func SignerProofDigest(chainID, validator, orchestrator string, evm common.Address) common.Hash {
	buf := append([]byte(nil), signerProofTag.Bytes()...)
	for _, s := range []string{chainID, validator, orchestrator} {
		buf = binary.BigEndian.AppendUint64(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	buf = append(buf, evm.Bytes()...)
	return crypto.Keccak256Hash(buf)
}

// SignDigest signs digest as the vault expects (EIP-191 hash, V 27/28,
// low s) and returns the 65 bytes r ‖ s ‖ v that messages carry.
func SignDigest(key *ecdsa.PrivateKey, digest common.Hash) ([]byte, error) {
	v, r, s, err := payout.SignDigest(key, digest)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 65)
	out = append(out, r[:]...)
	out = append(out, s[:]...)
	return append(out, v), nil
}

// RecoverSigner is the bridge's one rule for an orchestrator's signature:
// 65 bytes r ‖ s ‖ v with v 27 or 28 and s in the lower half (what the vault
// accepts), over the EIP-191 hash of digest. It returns the EVM address that
// signed.
func RecoverSigner(digest common.Hash, sig []byte) (common.Address, error) {
	ps, err := VaultSignature(0, sig)
	if err != nil {
		return common.Address{}, err
	}
	addr, err := payout.Recover(digest, ps)
	if err != nil {
		return common.Address{}, errorsmod.Wrap(ErrBadSignature, err.Error())
	}
	return addr, nil
}

// VaultSignature turns 65 bytes r ‖ s ‖ v into the vault's Signature for the
// signer at index.
func VaultSignature(index uint32, sig []byte) (payout.Signature, error) {
	if len(sig) != 65 {
		return payout.Signature{}, errorsmod.Wrapf(ErrBadSignature, "%d bytes, want 65", len(sig))
	}
	ps := payout.Signature{Index: index, V: sig[64]}
	copy(ps.R[:], sig[:32])
	copy(ps.S[:], sig[32:64])
	return ps, nil
}
