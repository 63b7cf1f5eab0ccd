// Package chain is the provider agent's link to the idlegpu chain: it signs
// and submits transactions with a locally kept account sequence, gives a
// client context through which any module can be queried, and follows block
// headers without gaps across websocket failures and node restarts.
package chainclient

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	jsonrpcclient "github.com/cometbft/cometbft/rpc/jsonrpc/client"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"
	"github.com/cosmos/cosmos-sdk/crypto/keyring"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
)

const (
	// DefaultGasAdjustment scales the simulated gas: execution can cost a
	// little more than the simulation measured (state changes in between).
	DefaultGasAdjustment = 1.3

	// DefaultTxTimeout is how long Submit waits for a broadcast tx to be
	// included in a block.
	DefaultTxTimeout = 30 * time.Second

	// rpcTimeout bounds one RPC round trip, so a node that accepts
	// connections but never answers is a transport failure (retried), not a
	// hang.
	rpcTimeout = 20 * time.Second

	// defaultFollowStall is how long FollowHeaders waits for a live header
	// before asking the node whether it missed any.
	defaultFollowStall = 5 * time.Second
)

// Config says which node to talk to and which key signs.
type Config struct {
	// RPC is the CometBFT RPC address of a node, e.g. "tcp://127.0.0.1:26657".
	RPC string
	// Fallbacks are more nodes' RPC addresses: queries, broadcasts and the
	// header follower move to the next one when the current node cannot be
	// reached (in order, round).
	Fallbacks []string
	// ChainID is the chain id the transactions are signed for.
	ChainID string
	// KeyringDir is the keyring's directory.
	KeyringDir string
	// KeyringBackend is "test", "file" or "os".
	KeyringBackend string
	// KeyName is the signing key's name in the keyring.
	KeyName string
	// GasPrices is the price paid per unit of gas, in one denom, e.g. "0.0025ugpu".
	GasPrices string
	// GasAdjustment multiplies the simulated gas (default 1.3).
	GasAdjustment float64
	// TxTimeout is how long Submit waits for inclusion (default 30s).
	TxTimeout time.Duration
	// KeyringInput is where the "file" backend reads its passphrase
	// (default os.Stdin).
	KeyringInput io.Reader
	// Logger receives retries and reconnections (default: discarded).
	Logger *slog.Logger
}

// Client signs and submits the agent's transactions and follows the chain.
// Submit is safe for concurrent use: signing and broadcasting are
// serialised, waiting for a block is not.
type Client struct {
	cfg       Config
	clientCtx client.Context
	gasPrice  sdk.DecCoin
	log       *slog.Logger
	http      []*http.Client // the clients New made, closed by Close; none with NewWithContext

	// sem serialises signing and broadcasting: the local sequence moves
	// one accepted tx at a time. It is a channel, not a sync.Mutex, so
	// waiting for it honours ctx.
	sem       chan struct{}
	accLoaded bool
	accNum    uint64
	seq       uint64

	followStall time.Duration
}

// New connects to the node at cfg.RPC and opens the keyring. Nothing is
// sent until the first Submit or query.
func New(cfg Config) (*Client, error) {
	enc, err := Encoding()
	if err != nil {
		return nil, fmt.Errorf("chain encoding: %w", err)
	}
	if cfg.RPC == "" {
		return nil, errors.New("chain: RPC address must be set")
	}
	input := cfg.KeyringInput
	if input == nil {
		input = os.Stdin
	}
	kr, err := keyring.New(sdk.KeyringServiceName(), cfg.KeyringBackend, cfg.KeyringDir, input, enc.Codec)
	if err != nil {
		return nil, fmt.Errorf("chain: keyring: %w", err)
	}
	var (
		hcs   []*http.Client
		nodes []client.CometRPC
	)
	closeAll := func() {
		for _, hc := range hcs {
			hc.CloseIdleConnections()
		}
	}
	urls := cfg.nodes()
	for _, u := range urls {
		hc, err := jsonrpcclient.DefaultHTTPClient(u)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("chain: RPC address %q: %w", u, err)
		}
		hc.Timeout = rpcTimeout
		hcs = append(hcs, hc)
		node, err := rpchttp.NewWithClient(u, "/websocket", hc)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("chain: RPC address %q: %w", u, err)
		}
		nodes = append(nodes, node)
	}
	var rpc client.CometRPC = nodes[0]
	if len(nodes) > 1 {
		logger := cfg.Logger
		if logger == nil {
			logger = slog.New(slog.DiscardHandler)
		}
		rpc = &failover{nodes: nodes, urls: urls, log: logger}
	}
	clientCtx := client.Context{}.
		WithCodec(enc.Codec).
		WithInterfaceRegistry(enc.InterfaceRegistry).
		WithTxConfig(enc.TxConfig).
		WithKeyring(kr).
		WithKeyringDir(cfg.KeyringDir).
		WithNodeURI(cfg.RPC).
		WithClient(rpc)
	c, err := NewWithContext(clientCtx, cfg)
	if err != nil {
		closeAll()
		return nil, err
	}
	c.http = hcs
	return c, nil
}

// nodes are the RPC addresses in the order tried: RPC, then Fallbacks.
func (cfg Config) nodes() []string {
	return append([]string{cfg.RPC}, cfg.Fallbacks...)
}

// NewWithContext builds a Client on a prepared client context, which must
// carry the RPC client, keyring, codec, interface registry and tx config.
// The signer, chain id, gas and timeouts come from cfg; cfg.RPC (default:
// the context's NodeURI) is where FollowHeaders connects.
func NewWithContext(clientCtx client.Context, cfg Config) (*Client, error) {
	if cfg.RPC == "" {
		cfg.RPC = clientCtx.NodeURI
	}
	if cfg.GasAdjustment == 0 {
		cfg.GasAdjustment = DefaultGasAdjustment
	}
	if cfg.TxTimeout == 0 {
		cfg.TxTimeout = DefaultTxTimeout
	}
	switch {
	case clientCtx.Client == nil:
		return nil, errors.New("chain: the client context has no RPC client")
	case clientCtx.Keyring == nil:
		return nil, errors.New("chain: the client context has no keyring")
	case clientCtx.TxConfig == nil || clientCtx.Codec == nil || clientCtx.InterfaceRegistry == nil:
		return nil, errors.New("chain: the client context lacks its codec, interface registry or tx config")
	case cfg.ChainID == "":
		return nil, errors.New("chain: chain id must be set")
	case cfg.KeyName == "":
		return nil, errors.New("chain: key name must be set")
	case cfg.GasAdjustment < 1:
		return nil, fmt.Errorf("chain: gas adjustment %v is below 1", cfg.GasAdjustment)
	case cfg.TxTimeout < 0:
		return nil, fmt.Errorf("chain: negative tx timeout %s", cfg.TxTimeout)
	}
	// One denom: the tx factory would charge every listed denom at once.
	prices, err := sdk.ParseDecCoins(cfg.GasPrices)
	if err != nil {
		return nil, fmt.Errorf("chain: gas prices %q: %w", cfg.GasPrices, err)
	}
	if len(prices) != 1 || !prices[0].IsPositive() {
		return nil, fmt.Errorf("chain: gas prices %q: want one positive price, e.g. 0.0025ugpu", cfg.GasPrices)
	}
	rec, err := clientCtx.Keyring.Key(cfg.KeyName)
	if err != nil {
		return nil, fmt.Errorf("chain: key %q: %w", cfg.KeyName, err)
	}
	addr, err := rec.GetAddress()
	if err != nil {
		return nil, fmt.Errorf("chain: key %q: %w", cfg.KeyName, err)
	}
	if clientCtx.AccountRetriever == nil {
		clientCtx = clientCtx.WithAccountRetriever(authtypes.AccountRetriever{})
	}
	clientCtx = clientCtx.
		WithChainID(cfg.ChainID).
		WithFrom(cfg.KeyName).
		WithFromName(cfg.KeyName).
		WithFromAddress(addr).
		WithBroadcastMode(flags.BroadcastSync).
		WithSkipConfirmation(true)
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Client{
		cfg:         cfg,
		clientCtx:   clientCtx,
		gasPrice:    prices[0],
		log:         logger,
		sem:         make(chan struct{}, 1),
		followStall: defaultFollowStall,
	}, nil
}

// Address is the signing key's account address.
func (c *Client) Address() sdk.AccAddress { return c.clientCtx.FromAddress }

// Context is the client context: pass it to any module's NewQueryClient
// (it implements grpc's ClientConn over ABCI queries to the node).
func (c *Client) Context() client.Context { return c.clientCtx }

// Close releases the idle RPC connections New opened. Followers end with
// their own contexts.
func (c *Client) Close() error {
	for _, hc := range c.http {
		hc.CloseIdleConnections()
	}
	return nil
}
