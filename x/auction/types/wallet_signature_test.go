package types_test

import (
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// FuzzRecoverWalletSigner: any bytes as a signature either recover the key
// that made them or give ErrBadSignature; nothing panics, and no signature
// recovers when s is in the upper half of the curve order.
func FuzzRecoverWalletSigner(f *testing.F) {
	digest := crypto.Keccak256([]byte("idlegpu"))
	key, err := crypto.GenerateKey()
	if err != nil {
		f.Fatal(err)
	}
	good, err := crypto.Sign(digest, key)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(append(append([]byte{}, good[:64]...), 27))
	f.Add(good[:10])
	f.Add(make([]byte, 65))
	f.Fuzz(func(t *testing.T, sig []byte) {
		addr, err := types.RecoverWalletSigner(digest, sig)
		if err != nil {
			if !errors.Is(err, types.ErrBadSignature) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if len(sig) != 65 {
			t.Fatalf("a %d-byte signature recovered %s", len(sig), addr.Hex())
		}
		half := new(big.Int).Rsh(crypto.S256().Params().N, 1)
		if new(big.Int).SetBytes(sig[32:64]).Cmp(half) > 0 {
			t.Fatalf("a high-s signature recovered %s", addr.Hex())
		}
	})
}
