package endpoint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	sdk "github.com/cosmos/cosmos-sdk/types"
)

// MaxOutputFiles bounds a listing; files past it are counted as skipped.
const MaxOutputFiles = 10000

// File is one regular file of a job's output directory.
type File struct {
	// Name is the path under OutputDir, with "/" separators.
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Listing is the final content of a lease's output directory, signed by
// the agent's key: the renter checks every download against it, and holds
// the provider to it.
type Listing struct {
	ChainID  string `json:"chain_id"`
	Provider string `json:"provider"`
	LeaseID  uint64 `json:"lease_id"`
	// EndedAt is when the agent saw the job's lease end; DeleteAt is when
	// the files are deleted from the provider's disk.
	EndedAt  time.Time `json:"ended_at"`
	DeleteAt time.Time `json:"delete_at"`
	// Files are sorted by name.
	Files []File `json:"files"`
	// Skipped counts what is not listed and not served: symbolic links,
	// devices, sockets, names that are not valid UTF-8, and files past
	// MaxOutputFiles.
	Skipped int `json:"skipped"`
	// PubKey is the agent's compressed secp256k1 key; its address is the
	// provider's operator or one of the provider's agents on chain.
	PubKey    []byte `json:"pub_key"`
	Signature []byte `json:"signature"`
}

// SigningBytes are what the agent signs: a domain tag, then every field
// but the key and signature (the key is the one the signature verifies
// under), each length-prefixed so no two listings share them.
func (l Listing) SigningBytes() []byte {
	out := []byte("idlegpu-outputs-v1")
	put := func(b []byte) {
		out = binary.BigEndian.AppendUint32(out, uint32(len(b)))
		out = append(out, b...)
	}
	num := func(v int64) { put([]byte(strconv.FormatInt(v, 10))) }
	put([]byte(l.ChainID))
	put([]byte(l.Provider))
	put([]byte(strconv.FormatUint(l.LeaseID, 10)))
	num(l.EndedAt.UnixMilli())
	num(l.DeleteAt.UnixMilli())
	num(int64(l.Skipped))
	num(int64(len(l.Files)))
	for _, f := range l.Files {
		put([]byte(f.Name))
		num(f.Size)
		put([]byte(f.SHA256))
	}
	return out
}

// Sign sets PubKey and Signature, signed with the agent's key (the
// keyring's Sign: secp256k1 over sha256(msg)).
func (l *Listing) Sign(s KeySigner) error {
	sig, pub, err := s(l.SigningBytes())
	if err != nil {
		return err
	}
	l.PubKey, l.Signature = pub, sig
	return nil
}

// ErrBadListing is a listing whose signature does not verify.
var ErrBadListing = errors.New("output listing signature does not verify")

// Verify checks the signature and returns the signer's address; the caller
// checks that it is the lease's provider or one of its agents.
func (l Listing) Verify() (sdk.AccAddress, error) {
	if len(l.PubKey) != secp256k1.PubKeySize {
		return nil, fmt.Errorf("%w: public key of %d bytes", ErrBadListing, len(l.PubKey))
	}
	pub := &secp256k1.PubKey{Key: l.PubKey}
	if !pub.VerifySignature(l.SigningBytes(), l.Signature) {
		return nil, ErrBadListing
	}
	return sdk.AccAddress(pub.Address()), nil
}

// File returns the listed file called name.
func (l Listing) File(name string) (File, bool) {
	for _, f := range l.Files {
		if f.Name == name {
			return f, true
		}
	}
	return File{}, false
}
