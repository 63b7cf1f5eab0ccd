package browsertest_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/idlegpu/idlegpu/scripts/browsertest"
)

// mailTypedData is EIP-712's own example, on chain 7.
const mailTypedData = `{
  "types": {
    "EIP712Domain": [
      {"name": "name", "type": "string"},
      {"name": "version", "type": "string"},
      {"name": "chainId", "type": "uint256"},
      {"name": "verifyingContract", "type": "address"}
    ],
    "Person": [
      {"name": "name", "type": "string"},
      {"name": "wallet", "type": "address"}
    ],
    "Mail": [
      {"name": "from", "type": "Person"},
      {"name": "to", "type": "Person"},
      {"name": "contents", "type": "string"}
    ]
  },
  "primaryType": "Mail",
  "domain": {
    "name": "Ether Mail",
    "version": "1",
    "chainId": 7,
    "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"
  },
  "message": {
    "from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
    "to": {"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},
    "contents": "Hello, Bob!"
  }
}`

const testChainID = 7

// recoverTypedData returns the signer of an eth_signTypedData_v4 signature.
func recoverTypedData(t *testing.T, typedDataJSON, sigHex string) common.Address {
	t.Helper()
	var td apitypes.TypedData
	if err := json.Unmarshal([]byte(typedDataJSON), &td); err != nil {
		t.Fatal(err)
	}
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	return recoverHash(t, hash, sigHex)
}

// recoverPersonal returns the signer of a personal_sign signature of msg.
func recoverPersonal(t *testing.T, msg []byte, sigHex string) common.Address {
	t.Helper()
	return recoverHash(t, accounts.TextHash(msg), sigHex)
}

func recoverHash(t *testing.T, hash []byte, sigHex string) common.Address {
	t.Helper()
	sig, err := hexutil.Decode(sigHex)
	if err != nil {
		t.Fatalf("signature %q: %v", sigHex, err)
	}
	if len(sig) != 65 || (sig[64] != 27 && sig[64] != 28) {
		t.Fatalf("signature %s: want 65 bytes with v 27 or 28", sigHex)
	}
	sig[64] -= 27
	pub, err := crypto.SigToPub(hash, sig)
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(*pub)
}

func providerCode(t *testing.T, err error) int {
	t.Helper()
	var perr *browsertest.ProviderError
	if !errors.As(err, &perr) {
		t.Fatalf("error %v is not a *ProviderError", err)
	}
	return perr.Code
}

func TestWalletRequest(t *testing.T) {
	w := browsertest.NewWallet(t, testChainID)
	addr := w.Address().Hex()
	other := "0x000000000000000000000000000000000000dEaD"

	t.Run("accounts and chain", func(t *testing.T) {
		for _, m := range []string{"eth_requestAccounts", "eth_accounts"} {
			got, err := w.Request(m, nil)
			if err != nil {
				t.Fatal(err)
			}
			if a := got.([]string); len(a) != 1 || a[0] != addr {
				t.Errorf("%s = %v, want [%s]", m, a, addr)
			}
		}
		got, err := w.Request("eth_chainId", nil)
		if err != nil || got != "0x7" {
			t.Errorf("eth_chainId = %v, %v; want 0x7", got, err)
		}
	})

	t.Run("typed data, lowercase address", func(t *testing.T) {
		got, err := w.Request("eth_signTypedData_v4", []any{strings.ToLower(addr), mailTypedData})
		if err != nil {
			t.Fatal(err)
		}
		if signer := recoverTypedData(t, mailTypedData, got.(string)); signer != w.Address() {
			t.Errorf("signer %s, want %s", signer, addr)
		}
	})

	t.Run("typed data as an object", func(t *testing.T) {
		var obj any
		if err := json.Unmarshal([]byte(mailTypedData), &obj); err != nil {
			t.Fatal(err)
		}
		got, err := w.Request("eth_signTypedData_v4", []any{addr, obj})
		if err != nil {
			t.Fatal(err)
		}
		if signer := recoverTypedData(t, mailTypedData, got.(string)); signer != w.Address() {
			t.Errorf("signer %s, want %s", signer, addr)
		}
	})

	t.Run("personal_sign text and hex", func(t *testing.T) {
		for _, msg := range []string{"hello idlegpu", hexutil.Encode([]byte("hello idlegpu"))} {
			got, err := w.Request("personal_sign", []any{msg, addr})
			if err != nil {
				t.Fatal(err)
			}
			if signer := recoverPersonal(t, []byte("hello idlegpu"), got.(string)); signer != w.Address() {
				t.Errorf("personal_sign(%q): signer %s, want %s", msg, signer, addr)
			}
		}
	})

	refusals := []struct {
		name     string
		method   string
		params   []any
		wantCode int
	}{
		{"typed data for another account", "eth_signTypedData_v4", []any{other, mailTypedData}, browsertest.CodeUnauthorized},
		{"personal_sign for another account", "personal_sign", []any{"hi", other}, browsertest.CodeUnauthorized},
		{"typed data for another chain", "eth_signTypedData_v4", []any{addr, strings.Replace(mailTypedData, `"chainId": 7`, `"chainId": 8`, 1)}, browsertest.CodeInvalidParams},
		{"typed data not JSON", "eth_signTypedData_v4", []any{addr, "{"}, browsertest.CodeInvalidParams},
		{"typed data missing", "eth_signTypedData_v4", []any{addr}, browsertest.CodeInvalidParams},
		{"not an address", "personal_sign", []any{"hi", "bob"}, browsertest.CodeInvalidParams},
		{"unsupported", "eth_sendTransaction", []any{map[string]any{}}, browsertest.CodeUnsupportedMethod},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.Request(tc.method, tc.params)
			if code := providerCode(t, err); code != tc.wantCode {
				t.Errorf("code %d (%v), want %d", code, err, tc.wantCode)
			}
		})
	}
}

func TestFind(t *testing.T) {
	t.Run("env names a missing binary", func(t *testing.T) {
		t.Setenv(browsertest.EnvChromium, "/nonexistent/chromium")
		_, err := browsertest.Find()
		if err == nil || !strings.Contains(err.Error(), "/nonexistent/chromium") {
			t.Errorf("Find() error = %v, want one naming the binary", err)
		}
	})
	t.Run("nothing on PATH", func(t *testing.T) {
		t.Setenv(browsertest.EnvChromium, "")
		t.Setenv("PATH", t.TempDir())
		_, err := browsertest.Find()
		if err == nil {
			t.Fatal("Find() found a browser on an empty PATH")
		}
		for _, name := range []string{browsertest.EnvChromium, "chromium", "chromium-browser", "google-chrome"} {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("Find() error %q does not name %s", err, name)
			}
		}
	})
}

// TestConnectedWalletRefusals: a wallet with an EVM node refuses, before
// asking the node anything, a transaction from another account or to no
// address, and a switch to a chain it is not on.
func TestConnectedWalletRefusals(t *testing.T) {
	w := browsertest.NewWallet(t, testChainID)
	// Nothing listens there: every case must be answered without the node.
	client, err := ethclient.Dial("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	w.ConnectEVM(client)
	addr := w.Address().Hex()
	if got, err := w.Request("wallet_switchEthereumChain", []any{map[string]any{"chainId": "0x7"}}); err != nil || got != nil {
		t.Errorf("switch to its own chain = %v, %v; want null", got, err)
	}
	for _, tc := range []struct {
		name     string
		method   string
		params   []any
		wantCode int
	}{
		{"switch to another chain", "wallet_switchEthereumChain", []any{map[string]any{"chainId": "0x8"}}, browsertest.CodeUnrecognizedChain},
		{"send from another account", "eth_sendTransaction", []any{map[string]any{"from": "0x000000000000000000000000000000000000dEaD", "to": addr}}, browsertest.CodeUnauthorized},
		{"send a creation", "eth_sendTransaction", []any{map[string]any{"from": addr, "data": "0x00"}}, browsertest.CodeInvalidParams},
		{"send bad data", "eth_sendTransaction", []any{map[string]any{"from": addr, "to": addr, "data": "0xz"}}, browsertest.CodeInvalidParams},
		{"receipt without a hash", "eth_getTransactionReceipt", []any{}, browsertest.CodeInvalidParams},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.Request(tc.method, tc.params)
			if code := providerCode(t, err); code != tc.wantCode {
				t.Errorf("code %d (%v), want %d", code, err, tc.wantCode)
			}
		})
	}
}
