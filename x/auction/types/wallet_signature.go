package types

import (
	"math/big"

	errorsmod "cosmossdk.io/errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// WalletSignatureGas is the gas a wallet signature's recovery costs: the
// EVM's ecrecover price.
const WalletSignatureGas = 3000

// RecoverWalletSigner returns the Ethereum address whose key made sig over
// digest: 65 bytes r ‖ s ‖ v, v 27/28 (wallets) or 0/1, s in the lower half
// of the curve order (a high-s twin of a valid signature is refused, so one
// signed message has exactly one signature the chain accepts).
func RecoverWalletSigner(digest, sig []byte) (common.Address, error) {
	norm, err := normalWalletSignature(sig)
	if err != nil {
		return common.Address{}, err
	}
	pub, err := crypto.SigToPub(digest, norm)
	if err != nil {
		return common.Address{}, errorsmod.Wrapf(ErrBadSignature, "recovers no key: %v", err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// ValidateWalletSignature checks what RecoverWalletSigner requires of a
// signature's form, before any digest: a message's ValidateBasic runs it.
func ValidateWalletSignature(sig []byte) error {
	_, err := normalWalletSignature(sig)
	return err
}

// normalWalletSignature checks sig's form and returns it with v as 0 or 1.
func normalWalletSignature(sig []byte) ([]byte, error) {
	if len(sig) != crypto.SignatureLength {
		return nil, errorsmod.Wrapf(ErrBadSignature, "%d bytes, want 65", len(sig))
	}
	v := sig[64]
	if v == 27 || v == 28 {
		v -= 27
	}
	if v > 1 {
		return nil, errorsmod.Wrapf(ErrBadSignature, "v is %d, want 27, 28, 0 or 1", sig[64])
	}
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:64])
	if !crypto.ValidateSignatureValues(v, r, s, true) {
		return nil, errorsmod.Wrap(ErrBadSignature, "r or s out of range, or s in the upper half of the curve order")
	}
	norm := make([]byte, crypto.SignatureLength)
	copy(norm, sig[:64])
	norm[64] = v
	return norm, nil
}
