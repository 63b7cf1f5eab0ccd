package bridge

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
)

const (
	flagEthRPC            = "eth-rpc"
	flagEthKey            = "eth-key"
	flagEthPassphraseFile = "eth-passphrase-file"
	envEthPassphrase      = "IDLEGPU_ETH_PASSPHRASE"
	// receiptTimeout bounds the wait for one EVM transaction's receipt.
	receiptTimeout = 2 * time.Minute
)

// addEthRPCFlag: every command but register talks to the EVM chain.
func addEthRPCFlag(cmd *cobra.Command) {
	cmd.Flags().String(flagEthRPC, "http://127.0.0.1:8545", "EVM JSON-RPC endpoint")
}

// addEthKeyFlags: the EVM key, in the form the auction CLI takes for
// wallet-signed bids (keystore JSON or a hex key file).
func addEthKeyFlags(cmd *cobra.Command, what string) {
	f := cmd.Flags()
	f.String(flagEthKey, "", what+": a go-ethereum keystore JSON file or a file holding the key in hex")
	f.String(flagEthPassphraseFile, "", "file holding the keystore passphrase (else $"+envEthPassphrase+")")
	_ = cmd.MarkFlagRequired(flagEthKey)
}

// ethKey loads the --eth-key key. A daemon has no terminal, so the
// passphrase comes from a file or the environment only.
func ethKey(cmd *cobra.Command) (*ecdsa.PrivateKey, error) {
	path, _ := cmd.Flags().GetString(flagEthKey)
	return wallet.LoadKey(path, func() (string, error) {
		if p, _ := cmd.Flags().GetString(flagEthPassphraseFile); p != "" {
			b, err := os.ReadFile(p)
			if err != nil {
				return "", fmt.Errorf("reading the passphrase: %w", err)
			}
			return strings.TrimRight(string(b), "\r\n"), nil
		}
		if p, ok := os.LookupEnv(envEthPassphrase); ok {
			return p, nil
		}
		return "", fmt.Errorf("the keystore needs a passphrase: --%s or $%s", flagEthPassphraseFile, envEthPassphrase)
	})
}

// evm is one connection to the EVM chain with the vault bound.
type evm struct {
	client  *ethclient.Client
	chainID *big.Int
	vault   *bindings.SettlementVault
	vaultC  *bind.BoundContract
	addr    common.Address
}

// dialEVM connects to the --eth-rpc node and binds the vault at addr.
func dialEVM(ctx context.Context, cmd *cobra.Command, vaultAddr common.Address) (*evm, error) {
	url, _ := cmd.Flags().GetString(flagEthRPC)
	c, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("EVM node %s: %w", url, err)
	}
	id, err := c.ChainID(ctx)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("EVM node %s: chain id: %w", url, err)
	}
	v := bindings.NewSettlementVault()
	return &evm{client: c, chainID: id, vault: v, vaultC: v.Instance(c, vaultAddr), addr: vaultAddr}, nil
}

// call reads one view of the vault at the latest block.
func call[T any](ctx context.Context, e *evm, data []byte, unpack func([]byte) (T, error)) (T, error) {
	return bind.Call(e.vaultC, &bind.CallOpts{Context: ctx}, data, unpack)
}

// transactor signs with key for this chain; gas is estimated by the bindings.
func (e *evm) transactor(ctx context.Context, key *ecdsa.PrivateKey) *bind.TransactOpts {
	opts := bind.NewKeyedTransactor(key, e.chainID)
	opts.Context = ctx
	return opts
}

// send submits data to c and waits for a successful receipt: a reverted
// transaction is an error, with the vault's custom error decoded when the
// estimate already refused it.
func (e *evm) send(ctx context.Context, key *ecdsa.PrivateKey, c *bind.BoundContract, data []byte) (*types.Receipt, error) {
	tx, err := bind.Transact(c, e.transactor(ctx, key), data)
	if err != nil {
		return nil, e.explain(err)
	}
	return e.wait(ctx, tx.Hash())
}

// wait waits for tx's receipt and checks its status.
func (e *evm) wait(ctx context.Context, tx common.Hash) (*types.Receipt, error) {
	wctx, cancel := context.WithTimeout(ctx, receiptTimeout)
	defer cancel()
	rcpt, err := bind.WaitMined(wctx, e.client, tx)
	if err != nil {
		return nil, fmt.Errorf("waiting for %s: %w", tx, err)
	}
	if rcpt.Status != types.ReceiptStatusSuccessful {
		return rcpt, fmt.Errorf("EVM tx %s reverted in block %d", tx, rcpt.BlockNumber)
	}
	return rcpt, nil
}

// explain names the vault's custom error in a refused estimate, so an
// operator reads "TimelockNotExpired", not revert bytes.
func (e *evm) explain(err error) error {
	type dataError interface{ ErrorData() interface{} }
	de, ok := err.(dataError)
	if !ok {
		return err
	}
	s, ok := de.ErrorData().(string)
	if !ok {
		return err
	}
	if verr, uerr := e.vault.UnpackError(common.FromHex(s)); uerr == nil {
		return fmt.Errorf("%w: %T%+v", err, verr, verr)
	}
	return err
}
