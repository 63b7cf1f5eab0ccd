// Package endpoint is the renter-facing HTTP endpoint the agent serves at
// the provider's registered endpoint: the renter sends the lease's manifest
// and reads the job's status, logs, raw samples with Merkle paths and,
// once it ended, its outputs. Every request is signed by the lease's
// renter and can be used once.
package endpoint

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Request headers of the renter's signature. A Cosmos key sends its public
// key; an Ethereum wallet sends its address instead (its signature recovers
// the key).
const (
	HeaderPubKey    = "X-Idlegpu-Pubkey"    // base64 compressed secp256k1 key of the renter
	HeaderAddress   = "X-Idlegpu-Address"   // 0x address of a renter that signs with a wallet
	HeaderTimestamp = "X-Idlegpu-Timestamp" // Unix milliseconds
	HeaderNonce     = "X-Idlegpu-Nonce"     // unique per request, ≤ 64 printable ASCII bytes
	HeaderSignature = "X-Idlegpu-Signature" // base64 signature over SigningBytes (or WalletText)
)

// MaxSkew is how far a request's timestamp may be from the agent's clock;
// nonces are remembered that long, which makes every request single-use.
const MaxSkew = 2 * time.Minute

// Target is whom a request is for: the provider's endpoint on one chain.
// Both are signed, so a request signed for one endpoint (or for the same
// provider on a test chain) is refused by every other.
type Target struct {
	ChainID  string
	Provider string // bech32 operator address
}

// Request is what a renter signs of a request: whom it is for, the
// method, the path with query, the timestamp, the nonce and the body.
type Request struct {
	Target    Target
	Method    string
	PathQuery string
	TsMillis  int64
	Nonce     string
	Body      []byte
}

// SigningBytes is what a Cosmos key signs: a domain tag, then the chain
// id, the provider, the method, the path with query, the timestamp, the
// nonce and the body's sha256, each length-prefixed so no two requests
// share signing bytes.
func SigningBytes(t Target, method, pathQuery string, tsMillis int64, nonce string, body []byte) []byte {
	sum := sha256.Sum256(body)
	out := []byte("idlegpu-endpoint-v2")
	for _, part := range [][]byte{[]byte(t.ChainID), []byte(t.Provider), []byte(method), []byte(pathQuery),
		[]byte(strconv.FormatInt(tsMillis, 10)), []byte(nonce), sum[:]} {
		out = binary.BigEndian.AppendUint32(out, uint32(len(part)))
		out = append(out, part...)
	}
	return out
}

// Bytes is SigningBytes of q.
func (q Request) Bytes() []byte {
	return SigningBytes(q.Target, q.Method, q.PathQuery, q.TsMillis, q.Nonce, q.Body)
}

// Signer signs requests as a renter: a Cosmos key (KeySigner) or an
// Ethereum wallet key (WalletKey). It sets the signature headers.
type Signer interface {
	SignRequest(h http.Header, q Request) error
}

// KeySigner signs with a Cosmos secp256k1 key (a keyring key or a raw
// key): Sign returns the signature over msg and the compressed public key.
type KeySigner func(msg []byte) (sig []byte, pub []byte, err error)

// SignRequest signs q's SigningBytes.
func (f KeySigner) SignRequest(h http.Header, q Request) error {
	sig, pub, err := f(q.Bytes())
	if err != nil {
		return err
	}
	h.Set(HeaderPubKey, base64.StdEncoding.EncodeToString(pub))
	h.Set(HeaderSignature, base64.StdEncoding.EncodeToString(sig))
	return nil
}

// SignRequest adds the signature headers to r for body, for target.
func SignRequest(r *http.Request, body []byte, s Signer, target Target, now time.Time, nonce string) error {
	ts := now.UnixMilli()
	if err := s.SignRequest(r.Header, Request{Target: target, Method: r.Method, PathQuery: r.URL.RequestURI(), TsMillis: ts, Nonce: nonce, Body: body}); err != nil {
		return err
	}
	r.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	r.Header.Set(HeaderNonce, nonce)
	return nil
}

// Errors of request authentication.
var (
	ErrUnsigned  = errors.New("request is not signed")
	ErrBadSig    = errors.New("bad signature")
	ErrStale     = errors.New("request timestamp outside the allowed skew")
	ErrReplayed  = errors.New("request nonce already used")
	ErrNotRenter = errors.New("signer is not the lease's renter")
)

// verify checks a request's signature and returns the signer's address.
func verify(r *http.Request, body []byte, target Target, now time.Time) (sdk.AccAddress, int64, string, error) {
	pubB64, ethAddr, tsS, nonce, sigB64 := r.Header.Get(HeaderPubKey), r.Header.Get(HeaderAddress), r.Header.Get(HeaderTimestamp), r.Header.Get(HeaderNonce), r.Header.Get(HeaderSignature)
	if (pubB64 == "" && ethAddr == "") || tsS == "" || nonce == "" || sigB64 == "" {
		return nil, 0, "", ErrUnsigned
	}
	if pubB64 != "" && ethAddr != "" {
		return nil, 0, "", fmt.Errorf("%w: both %s and %s", ErrBadSig, HeaderPubKey, HeaderAddress)
	}
	if len(nonce) > 64 || !printable(nonce) {
		return nil, 0, "", fmt.Errorf("%w: nonce must be at most 64 printable ASCII bytes", ErrBadSig)
	}
	ts, err := strconv.ParseInt(tsS, 10, 64)
	if err != nil {
		return nil, 0, "", fmt.Errorf("%w: timestamp %q", ErrBadSig, tsS)
	}
	if d := now.Sub(time.UnixMilli(ts)); d > MaxSkew || d < -MaxSkew {
		return nil, 0, "", fmt.Errorf("%w: %s off", ErrStale, d)
	}
	sig, err := base64.StdEncoding.DecodeString(sigB64)
	if err != nil {
		return nil, 0, "", fmt.Errorf("%w: signature encoding", ErrBadSig)
	}
	q := Request{Target: target, Method: r.Method, PathQuery: r.URL.RequestURI(), TsMillis: ts, Nonce: nonce, Body: body}
	if ethAddr != "" {
		addr, err := verifyWallet(q, ethAddr, sig)
		return addr, ts, nonce, err
	}
	pubBz, err := base64.StdEncoding.DecodeString(pubB64)
	if err != nil || len(pubBz) != secp256k1.PubKeySize {
		return nil, 0, "", fmt.Errorf("%w: public key", ErrBadSig)
	}
	pub := &secp256k1.PubKey{Key: pubBz}
	if !pub.VerifySignature(q.Bytes(), sig) {
		return nil, 0, "", ErrBadSig
	}
	return sdk.AccAddress(pub.Address()), ts, nonce, nil
}

// printable reports whether s is printable ASCII without spaces, so a
// nonce cannot end a line of WalletText early.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}
