package sigverify

import (
	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
)

// pubKeyFor returns the key authsigning.VerifySignature should check data
// with. For a single signature by a secp256k1 key that is the key with its
// VerifySignature routed through v; VerifySignature calls nothing else on it.
// Any other key, and every multisig (whose sub-keys the SDK checks itself),
// is returned as it is.
func (v *Verifier) pubKeyFor(pk cryptotypes.PubKey, data signing.SignatureData) cryptotypes.PubKey {
	key, ok := pk.(*secp256k1.PubKey)
	if !ok {
		return pk
	}
	if _, single := data.(*signing.SingleSignatureData); !single {
		return pk
	}
	return verifyingKey{PubKey: key, verifier: v}
}

// verifyingKey is a secp256k1 key whose signatures the Verifier checks.
type verifyingKey struct {
	*secp256k1.PubKey
	verifier *Verifier
}

// VerifySignature implements cryptotypes.PubKey.
func (k verifyingKey) VerifySignature(msg, sig []byte) bool {
	return k.verifier.Verify(k.Key, msg, sig)
}
