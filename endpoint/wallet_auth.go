package endpoint

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/crypto"

	sdk "github.com/cosmos/cosmos-sdk/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// walletTextTag heads every request a wallet signs, so the text cannot be
// mistaken for any other message the wallet's owner signs.
const walletTextTag = "idlegpu endpoint request v2"

// WalletText is what an Ethereum wallet signs for a request (EIP-191
// personal_sign, which wallets show to their owner as text): the fields
// of SigningBytes, one per line. No field can hold a line break (the chain
// id and provider are the endpoint's own, the method and path come from
// the HTTP request line, the nonce is printable ASCII without spaces), so
// no two requests share a text.
func (q Request) WalletText() []byte {
	sum := sha256.Sum256(q.Body)
	return []byte(walletTextTag +
		"\nchain: " + q.Target.ChainID +
		"\nprovider: " + q.Target.Provider +
		"\nrequest: " + q.Method + " " + q.PathQuery +
		"\nbody sha256: " + hex.EncodeToString(sum[:]) +
		"\ntime: " + strconv.FormatInt(q.TsMillis, 10) +
		"\nnonce: " + q.Nonce)
}

// WalletKey signs requests as the Ethereum account of Key: the renter of a
// job posted by wallet signature (the account with the address's 20 bytes).
// A browser wallet makes the same signature with personal_sign over
// WalletText.
type WalletKey struct{ Key *ecdsa.PrivateKey }

// SignRequest signs q's WalletText (EIP-191) and names the address.
func (w WalletKey) SignRequest(h http.Header, q Request) error {
	sig, err := crypto.Sign(accounts.TextHash(q.WalletText()), w.Key)
	if err != nil {
		return err
	}
	sig[64] += 27 // as wallets send it
	h.Set(HeaderAddress, crypto.PubkeyToAddress(w.Key.PublicKey).Hex())
	h.Set(HeaderSignature, base64.StdEncoding.EncodeToString(sig))
	return nil
}

// verifyWallet checks a wallet's EIP-191 signature over q's WalletText by
// the chain's rules for wallet signatures (65 bytes, v 27/28 or 0/1, low s)
// and returns the account of the address that signed.
func verifyWallet(q Request, address string, sig []byte) (sdk.AccAddress, error) {
	want, err := auctiontypes.ParseEVMAddress(address)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not a 0x address", ErrBadSig, HeaderAddress)
	}
	got, err := auctiontypes.RecoverWalletSigner(accounts.TextHash(q.WalletText()), sig)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadSig, err)
	}
	if got != want {
		return nil, ErrBadSig
	}
	return sdk.AccAddress(got.Bytes()), nil
}
