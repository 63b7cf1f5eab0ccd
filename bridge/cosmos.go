package bridge

import (
	"bytes"
	"crypto/ecdsa"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/client"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/chainclient"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

const (
	flagNode              = "node"
	flagChainID           = "chain-id"
	flagKeyringDir        = "keyring-dir"
	flagKeyringBackend    = "keyring-backend"
	flagFrom              = "from"
	flagGasPrices         = "gas-prices"
	flagKeyringPassphrase = "keyring-passphrase-file"
	envKeyringPassphrase  = "IDLEGPU_KEYRING_PASSPHRASE"
	defaultNode           = "tcp://127.0.0.1:26657"
	defaultGasPrices      = "0.0025ugpu"
	defaultKeyringBackend = "file"
)

// addNodeFlags: every command reads the idlegpu chain.
func addNodeFlags(cmd *cobra.Command) {
	cmd.Flags().String(flagNode, defaultNode, "CometBFT RPC address of an idlegpu node")
}

// addCosmosKeyFlags: the commands that sign idlegpu transactions take the
// agent's keyring flags, so an operator keeps one keyring for both.
func addCosmosKeyFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.String(flagChainID, "", "idlegpu chain id the transactions are signed for")
	f.String(flagKeyringDir, "", "keyring directory")
	f.String(flagKeyringBackend, defaultKeyringBackend, "file, os or test")
	f.String(flagFrom, "", "name of the signing key in the keyring")
	f.String(flagGasPrices, defaultGasPrices, "gas price on the idlegpu chain, one denom")
	f.String(flagKeyringPassphrase, "", "file whose first line unlocks a file keyring (else $"+envKeyringPassphrase+", else stdin)")
	_ = cmd.MarkFlagRequired(flagChainID)
	_ = cmd.MarkFlagRequired(flagFrom)
}

// bridgeEncoding is the agent's encoding with x/bridge's messages added:
// the agent's chain client (sequence handling, retries, inclusion) is
// reused as it is, and the registry is a process-wide singleton, so
// registering here once before any client is built is enough.
func bridgeEncoding() (chainclient.EncodingConfig, error) {
	enc, err := chainclient.Encoding()
	if err != nil {
		return enc, err
	}
	registerOnce.Do(func() { bridgetypes.RegisterInterfaces(enc.InterfaceRegistry) })
	return enc, nil
}

// cosmosSigner opens the keyring and the node the flags name: the chain
// client submits with the agent's retries and sequence handling.
func cosmosSigner(cmd *cobra.Command, log *slog.Logger) (*chainclient.Client, error) {
	if _, err := bridgeEncoding(); err != nil {
		return nil, err
	}
	f := cmd.Flags()
	node, _ := f.GetString(flagNode)
	chainID, _ := f.GetString(flagChainID)
	dir, _ := f.GetString(flagKeyringDir)
	backend, _ := f.GetString(flagKeyringBackend)
	from, _ := f.GetString(flagFrom)
	prices, _ := f.GetString(flagGasPrices)
	input, err := keyringInput(cmd, backend)
	if err != nil {
		return nil, err
	}
	return chainclient.New(chainclient.Config{
		RPC: node, ChainID: chainID, KeyringDir: dir, KeyringBackend: backend, KeyName: from,
		GasPrices: prices, KeyringInput: input, Logger: log,
	})
}

// keyringInput is where a file keyring reads its passphrase: the flag's
// file, the environment (containers), else stdin. Other backends ask
// nothing. The SDK asks once per key read, so the line is repeated.
func keyringInput(cmd *cobra.Command, backend string) (io.Reader, error) {
	if backend != "file" {
		return cmd.InOrStdin(), nil
	}
	var pass string
	if path, _ := cmd.Flags().GetString(flagKeyringPassphrase); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("keyring passphrase: %w", err)
		}
		line, _, _ := bytes.Cut(b, []byte("\n"))
		pass = strings.TrimRight(string(line), "\r")
	} else if env := os.Getenv(envKeyringPassphrase); env != "" {
		pass = env
	} else {
		return cmd.InOrStdin(), nil
	}
	return strings.NewReader(strings.Repeat(pass+"\n", 16)), nil
}

// queryContext is a key-less client context for the commands that only
// read the idlegpu chain (relay, claim, deploy-vault).
func queryContext(cmd *cobra.Command) (client.Context, error) {
	enc, err := bridgeEncoding()
	if err != nil {
		return client.Context{}, err
	}
	node, _ := cmd.Flags().GetString(flagNode)
	rpc, err := rpchttp.New(node, "/websocket")
	if err != nil {
		return client.Context{}, fmt.Errorf("node %q: %w", node, err)
	}
	return client.Context{}.
		WithCodec(enc.Codec).
		WithInterfaceRegistry(enc.InterfaceRegistry).
		WithTxConfig(enc.TxConfig).
		WithAccountRetriever(authtypes.AccountRetriever{}).
		WithNodeURI(node).
		WithClient(rpc), nil
}

var registerOnce sync.Once

// keyedSession is what a command that signs for the EVM starts with: its
// logger and the --eth-key's key.
func keyedSession(cmd *cobra.Command) (*slog.Logger, *ecdsa.PrivateKey, error) {
	log, err := logger(cmd)
	if err != nil {
		return nil, nil, err
	}
	key, err := ethKey(cmd)
	return log, key, err
}

// validatorSession adds the idlegpu chain signer to keyedSession: what a
// validator's commands (register, orchestrate) start with. The caller
// closes the client.
func validatorSession(cmd *cobra.Command) (*slog.Logger, *ecdsa.PrivateKey, *chainclient.Client, error) {
	log, key, err := keyedSession(cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	cl, err := cosmosSigner(cmd, log)
	return log, key, cl, err
}
