package endpoint

import (
	"bytes"
	"encoding/base64"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	ethcrypto "github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
)

// TestWalletTextIsTheRequestLineByLine pins the text a wallet shows its
// owner: a change to it breaks every wallet client, so it is exact here.
func TestWalletTextIsTheRequestLineByLine(t *testing.T) {
	q := Request{
		Target: Target{ChainID: "idlegpu-1", Provider: "idle1provider"}, Method: "POST",
		PathQuery: "/v1/leases/7/manifest", TsMillis: 1733400000123, Nonce: "00ff", Body: []byte("{}"),
	}
	require.Equal(t, "idlegpu endpoint request v2\n"+
		"chain: idlegpu-1\n"+
		"provider: idle1provider\n"+
		"request: POST /v1/leases/7/manifest\n"+
		"body sha256: 44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\n"+
		"time: 1733400000123\n"+
		"nonce: 00ff", string(q.WalletText()))
}

// TestWalletRenterUsesTheEndpoint: the renter of a job bid by wallet
// signature sends the manifest and reads the status with its Ethereum
// key; the nonce is single-use for it as for a Cosmos key.
func TestWalletRenterUsesTheEndpoint(t *testing.T) {
	f := setup(t)
	now := time.Now()
	code, body := f.do(t, f.wallet, "POST", "/v1/leases/3/manifest", f.manifest, now, "w1")
	require.Equal(t, http.StatusAccepted, code, body)
	require.Contains(t, f.jobs.accepted, uint64(3))
	code, body = f.do(t, f.wallet, "POST", "/v1/leases/3/manifest", f.manifest, now, "w1")
	require.Equal(t, http.StatusConflict, code, body)
	require.Contains(t, body, "nonce already used")
	code, body = f.do(t, f.wallet, "GET", "/v1/leases/3/status", nil, now, "")
	require.Equal(t, http.StatusOK, code, body)
	// The wallet is not the renter of the Cosmos renter's lease, nor the
	// Cosmos renter of the wallet's.
	code, body = f.do(t, f.wallet, "GET", "/v1/leases/1/status", nil, now, "")
	require.Equal(t, http.StatusForbidden, code, body)
	code, body = f.do(t, f.renter, "GET", "/v1/leases/3/status", nil, now, "")
	require.Equal(t, http.StatusForbidden, code, body)
}

// TestForgedWalletRequestsFail: every way to pass a wallet signature off
// as the renter's is refused before the lease is looked at.
func TestForgedWalletRequestsFail(t *testing.T) {
	f := setup(t)
	other, err := ethcrypto.GenerateKey()
	require.NoError(t, err)
	renterAddr := ethcrypto.PubkeyToAddress(f.wallet.Key.PublicKey).Hex()
	n := ethcrypto.S256().Params().N
	cases := map[string]func(h http.Header){
		"another key claims the renter's address": func(h http.Header) {
			require.NoError(t, WalletKey{other}.SignRequest(h, f.signedFor(h)))
			h.Set(HeaderAddress, renterAddr)
		},
		"high-s twin of the renter's signature": func(h http.Header) {
			sig := decodeSig(t, h)
			s := new(big.Int).SetBytes(sig[32:64])
			new(big.Int).Sub(n, s).FillBytes(sig[32:64])
			sig[64] ^= 1 // 27 <-> 28
			h.Set(HeaderSignature, base64.StdEncoding.EncodeToString(sig))
		},
		"v of 29": func(h http.Header) {
			sig := decodeSig(t, h)
			sig[64] = 29
			h.Set(HeaderSignature, base64.StdEncoding.EncodeToString(sig))
		},
		"truncated signature": func(h http.Header) {
			h.Set(HeaderSignature, base64.StdEncoding.EncodeToString(decodeSig(t, h)[:64]))
		},
		"address not 0x hex": func(h http.Header) { h.Set(HeaderAddress, "idle1renter") },
		"both a public key and an address": func(h http.Header) {
			h.Set(HeaderPubKey, base64.StdEncoding.EncodeToString(f.renter.k.PubKey().Bytes()))
		},
		"a nonce with a line break": func(h http.Header) { h.Set(HeaderNonce, "a\nnonce: b") },
	}
	for name, tamper := range cases {
		t.Run(name, func(t *testing.T) {
			req, err := http.NewRequest("GET", f.srv.URL+"/v1/leases/3/status", nil)
			require.NoError(t, err)
			require.NoError(t, SignRequest(req, nil, f.wallet, f.target, time.Now(), "t-"+name[:4]))
			tamper(req.Header)
			res, err := http.DefaultClient.Do(req)
			if err != nil { // Go refuses to send a header with a line break
				require.Contains(t, name, "line break")
				return
			}
			res.Body.Close()
			require.Equal(t, http.StatusUnauthorized, res.StatusCode)
		})
	}
	require.Empty(t, f.jobs.accepted)
}

// signedFor rebuilds the Request a header set signed (for a re-signature).
func (f *fixture) signedFor(h http.Header) Request {
	ts, _ := new(big.Int).SetString(h.Get(HeaderTimestamp), 10)
	return Request{Target: f.target, Method: "GET", PathQuery: "/v1/leases/3/status", TsMillis: ts.Int64(), Nonce: h.Get(HeaderNonce)}
}

func decodeSig(t *testing.T, h http.Header) []byte {
	sig, err := base64.StdEncoding.DecodeString(h.Get(HeaderSignature))
	require.NoError(t, err)
	require.Len(t, sig, 65)
	return sig
}

// TestWalletSignatureIsPersonalSign: the signature is EIP-191
// personal_sign over WalletText by the named address, v 27/28, as a
// browser wallet makes it, so the web app can sign with the user's wallet.
func TestWalletSignatureIsPersonalSign(t *testing.T) {
	k, err := ethcrypto.HexToECDSA("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
	require.NoError(t, err)
	q := Request{Target: Target{ChainID: "idlegpu-1", Provider: "idle1provider"}, Method: "GET", PathQuery: "/v1/leases/1/status", TsMillis: 1, Nonce: "n"}
	h := http.Header{}
	require.NoError(t, WalletKey{k}.SignRequest(h, q))
	require.Equal(t, "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23", h.Get(HeaderAddress))
	sig := decodeSig(t, h)
	require.Contains(t, []byte{27, 28}, sig[64])
	sig[64] -= 27
	pub, err := ethcrypto.SigToPub(accounts.TextHash(q.WalletText()), sig)
	require.NoError(t, err)
	require.True(t, bytes.Equal(ethcrypto.PubkeyToAddress(*pub).Bytes(), ethcrypto.PubkeyToAddress(k.PublicKey).Bytes()))
}

// FuzzWalletVerify: any address, signature and nonce headers give a typed
// refusal or the account of the very address that signed — never a panic,
// never another account.
func FuzzWalletVerify(f *testing.F) {
	k, err := ethcrypto.HexToECDSA("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
	if err != nil {
		f.Fatal(err)
	}
	target := Target{ChainID: "idlegpu-1", Provider: "idle1provider"}
	now := time.UnixMilli(1_733_400_000_000)
	req, err := http.NewRequest("GET", "http://x/v1/leases/1/status", nil)
	if err != nil {
		f.Fatal(err)
	}
	if err := SignRequest(req, nil, WalletKey{k}, target, now, "seed"); err != nil {
		f.Fatal(err)
	}
	sig, _ := base64.StdEncoding.DecodeString(req.Header.Get(HeaderSignature))
	f.Add(req.Header.Get(HeaderAddress), sig, "seed")
	f.Add("0x0000000000000000000000000000000000000000", make([]byte, 65), "n")
	f.Fuzz(func(t *testing.T, address string, sig []byte, nonce string) {
		r, _ := http.NewRequest("GET", "http://x/v1/leases/1/status", nil)
		r.Header.Set(HeaderAddress, address)
		r.Header.Set(HeaderSignature, base64.StdEncoding.EncodeToString(sig))
		r.Header.Set(HeaderNonce, nonce)
		r.Header.Set(HeaderTimestamp, "1733400000000")
		acc, _, _, err := verify(r, nil, target, now)
		if err != nil {
			return
		}
		q := Request{Target: target, Method: "GET", PathQuery: "/v1/leases/1/status", TsMillis: 1_733_400_000_000, Nonce: nonce}
		got, rerr := recoverIndependently(q, sig)
		if rerr != nil || !bytes.Equal(acc, got) || !strings.EqualFold(address, common.BytesToAddress(got).Hex()) {
			t.Fatalf("accepted %x for address %q", acc, address)
		}
	})
}

// recoverIndependently recovers the signer of q's WalletText independently
// of verify's checks (go-ethereum's SigToPub after normalising v).
func recoverIndependently(q Request, sig []byte) ([]byte, error) {
	s := append([]byte(nil), sig...)
	if s[64] >= 27 {
		s[64] -= 27
	}
	pub, err := ethcrypto.SigToPub(accounts.TextHash(q.WalletText()), s)
	if err != nil {
		return nil, err
	}
	return ethcrypto.PubkeyToAddress(*pub).Bytes(), nil
}
