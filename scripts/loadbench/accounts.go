package main

import (
	"context"
	"fmt"
	"math"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	"github.com/cosmos/cosmos-sdk/client"
	clienttx "github.com/cosmos/cosmos-sdk/client/tx"
	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	signingtypes "github.com/cosmos/cosmos-sdk/types/tx/signing"
	authsigning "github.com/cosmos/cosmos-sdk/x/auth/signing"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// gasPrice is idlegpud's default minimum gas price (ugpu per gas).
const gasPrice = 0.0025

// account is a key the benchmark signs with in process: no keyring, no
// CLI, so the sender's cost is only the signature.
type account struct {
	priv     cryptotypes.PrivKey
	addr     sdk.AccAddress
	num, seq uint64
}

func newAccount(seed string) *account {
	priv := secp256k1.GenPrivKeyFromSecret([]byte(seed))
	return &account{priv: priv, addr: sdk.AccAddress(priv.PubKey().Address())}
}

func (a *account) String() string { return a.addr.String() }

// chainClient signs, sends and queries for the benchmark.
type chainClient struct {
	enc     chainclient.EncodingConfig
	chainID string
	node    *rpchttp.HTTP
	q       client.Context // ABCI gRPC queries
	poller  *Poller
}

func newChainClient(node *rpchttp.HTTP, chainID string, poller *Poller) (*chainClient, error) {
	enc, err := chainclient.Encoding()
	if err != nil {
		return nil, err
	}
	q := client.Context{}.WithCodec(enc.Codec).WithInterfaceRegistry(enc.InterfaceRegistry).WithTxConfig(enc.TxConfig).WithClient(node)
	return &chainClient{enc: enc, chainID: chainID, node: node, q: q, poller: poller}, nil
}

// sign builds and signs a tx at the account's next sequence (which it
// takes), paying the minimum gas price for gas.
func (c *chainClient) sign(a *account, gas uint64, msgs ...sdk.Msg) ([]byte, error) {
	txc := c.enc.TxConfig
	b := txc.NewTxBuilder()
	if err := b.SetMsgs(msgs...); err != nil {
		return nil, err
	}
	b.SetGasLimit(gas)
	b.SetFeeAmount(sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, int64(math.Ceil(float64(gas)*gasPrice)))))
	mode := signingtypes.SignMode_SIGN_MODE_DIRECT
	// The signer info goes in first: SIGN_MODE_DIRECT signs it too.
	if err := b.SetSignatures(signingtypes.SignatureV2{PubKey: a.priv.PubKey(),
		Data: &signingtypes.SingleSignatureData{SignMode: mode}, Sequence: a.seq}); err != nil {
		return nil, err
	}
	sig, err := clienttx.SignWithPrivKey(context.Background(), mode, authsigning.SignerData{
		Address: a.addr.String(), ChainID: c.chainID, AccountNumber: a.num, Sequence: a.seq, PubKey: a.priv.PubKey(),
	}, b, a.priv, txc, a.seq)
	if err != nil {
		return nil, err
	}
	if err := b.SetSignatures(sig); err != nil {
		return nil, err
	}
	a.seq++
	return txc.TxEncoder()(b.GetTx())
}

// load reads the account's number and sequence from the chain.
func (c *chainClient) load(ctx context.Context, a *account) error {
	res, err := authtypes.NewQueryClient(c.q).AccountInfo(ctx, &authtypes.QueryAccountInfoRequest{Address: a.addr.String()})
	if err != nil {
		return fmt.Errorf("account %s: %w", a, err)
	}
	a.num, a.seq = res.Info.AccountNumber, res.Info.Sequence
	return nil
}

// submit signs, sends and waits for the tx's block; a refusal or a failed
// tx is an error (setup must not go on half done).
func (c *chainClient) submit(ctx context.Context, a *account, gas uint64, msgs ...sdk.Msg) (outcome, error) {
	tx, err := c.sign(a, gas, msgs...)
	if err != nil {
		return outcome{}, err
	}
	out := c.poller.Track(tx)
	res, err := c.node.BroadcastTxSync(ctx, tx)
	if err != nil || res.Code != 0 {
		c.poller.Forget(tx)
		a.seq--
		if err == nil {
			err = fmt.Errorf("mempool refused (code %d): %s", res.Code, res.Log)
		}
		return outcome{}, err
	}
	select {
	case o := <-out:
		rs, err := c.poller.results(ctx, o.Height)
		if err != nil {
			return o, err
		}
		if r := rs[o.Index]; r.code != 0 {
			return o, fmt.Errorf("tx failed (code %d): %s", r.code, r.log)
		}
		return o, nil
	case <-time.After(2 * time.Minute):
		return outcome{}, fmt.Errorf("tx %X not in a block after 2 minutes", res.Hash)
	case <-ctx.Done():
		return outcome{}, ctx.Err()
	}
}
