package wallet

import (
	"bytes"
	"crypto/ecdsa"
	"fmt"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
)

// LoadKey reads an Ethereum key from a go-ethereum keystore JSON file
// (decrypted with passphrase) or from a file holding the key as hex.
func LoadKey(path string, passphrase func() (string, error)) (*ecdsa.PrivateKey, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the key: %w", err)
	}
	trimmed := bytes.TrimSpace(raw)
	if bytes.HasPrefix(trimmed, []byte("{")) {
		pass, err := passphrase()
		if err != nil {
			return nil, err
		}
		k, err := keystore.DecryptKey(trimmed, pass)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return k.PrivateKey, nil
	}
	k, err := crypto.HexToECDSA(strings.TrimPrefix(string(trimmed), "0x"))
	if err != nil {
		return nil, fmt.Errorf("%s is neither a keystore JSON file nor a hex key: %w", path, err)
	}
	return k, nil
}
