package wallet_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
)

func TestLoadKeyFromKeystoreOrHex(t *testing.T) {
	key, err := crypto.HexToECDSA(vectorKey)
	require.NoError(t, err)
	dir := t.TempDir()

	hexFile := filepath.Join(dir, "key.hex")
	require.NoError(t, os.WriteFile(hexFile, []byte("0x"+vectorKey+"\n"), 0o600))
	got, err := wallet.LoadKey(hexFile, func() (string, error) { t.Fatal("a hex key needs no passphrase"); return "", nil })
	require.NoError(t, err)
	require.Equal(t, key.D, got.D)

	js, err := keystore.EncryptKey(&keystore.Key{Id: uuid.New(), Address: crypto.PubkeyToAddress(key.PublicKey), PrivateKey: key},
		"s3cret", keystore.LightScryptN, keystore.LightScryptP)
	require.NoError(t, err)
	ksFile := filepath.Join(dir, "wallet.json")
	require.NoError(t, os.WriteFile(ksFile, js, 0o600))
	got, err = wallet.LoadKey(ksFile, func() (string, error) { return "s3cret", nil })
	require.NoError(t, err)
	require.Equal(t, key.D, got.D)

	_, err = wallet.LoadKey(ksFile, func() (string, error) { return "wrong", nil })
	require.ErrorIs(t, err, keystore.ErrDecrypt)
	_, err = wallet.LoadKey(ksFile, func() (string, error) { return "", errors.New("no passphrase source") })
	require.ErrorContains(t, err, "no passphrase source")
	bad := filepath.Join(dir, "bad")
	require.NoError(t, os.WriteFile(bad, []byte("not a key"), 0o600))
	_, err = wallet.LoadKey(bad, nil)
	require.ErrorContains(t, err, "neither a keystore JSON file nor a hex key")
}
