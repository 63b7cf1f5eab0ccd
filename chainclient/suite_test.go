package chainclient_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/suite"

	sdkmath "cosmossdk.io/math"

	"github.com/cometbft/cometbft/crypto/tmhash"
	rpchttp "github.com/cometbft/cometbft/rpc/client/http"

	"github.com/cosmos/cosmos-sdk/crypto/hd"
	"github.com/cosmos/cosmos-sdk/crypto/keyring"
	"github.com/cosmos/cosmos-sdk/testutil/network"
	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// gasPrice is both the node's minimum and the price the clients pay.
const gasPrice = apptesting.GasPrice

// networkConfig is a one-validator in-process network of the real idlegpu
// app with one-second blocks.
func networkConfig(t *testing.T) network.Config {
	return apptesting.NetworkConfig(t, "idlegpu-chain-test", 1)
}

// ChainSuite runs every test against one network: starting one costs
// seconds, and the tests read exact balance changes at the heights of
// their own txs, so they do not disturb each other.
type ChainSuite struct {
	suite.Suite
	net *network.Network
	val *network.Validator
	rpc *rpchttp.HTTP // plain RPC to the validator, for the tests' own checks
}

func TestChainSuite(t *testing.T) { suite.Run(t, new(ChainSuite)) }

func (s *ChainSuite) SetupSuite() {
	net, err := network.New(s.T(), s.T().TempDir(), networkConfig(s.T()))
	s.Require().NoError(err)
	s.net = net
	s.val = net.Validators[0]
	_, err = net.WaitForHeight(3)
	s.Require().NoError(err)
	s.rpc, err = rpchttp.New(s.val.RPCAddress, "/websocket")
	s.Require().NoError(err)
}

func (s *ChainSuite) TearDownSuite() {
	if s.net != nil {
		s.net.Cleanup()
	}
}

// config is a client configuration for key name in the validator's keyring.
func (s *ChainSuite) config(key string) chainclient.Config {
	return chainclient.Config{
		RPC:            s.val.RPCAddress,
		ChainID:        s.net.Config.ChainID,
		KeyringDir:     s.val.ClientCtx.KeyringDir,
		KeyringBackend: keyring.BackendTest,
		KeyName:        key,
		GasPrices:      gasPrice,
		TxTimeout:      15 * time.Second,
	}
}

// validatorKey is the validator's own key, funded at genesis.
func (s *ChainSuite) validatorKey() string { return s.val.Moniker }

// newClient is a client of key, closed when the test ends.
func (s *ChainSuite) newClient(cfg chainclient.Config) *chainclient.Client {
	c, err := chainclient.New(cfg)
	s.Require().NoError(err)
	s.T().Cleanup(func() { s.Require().NoError(c.Close()) })
	return c
}

// fundedKey makes a new key in the validator's keyring and sends it amount
// ugpu from the validator.
func (s *ChainSuite) fundedKey(name string, amount int64) sdk.AccAddress {
	rec, _, err := s.val.ClientCtx.Keyring.NewMnemonic(name, keyring.English, sdk.FullFundraiserPath, "", hd.Secp256k1)
	s.Require().NoError(err)
	addr, err := rec.GetAddress()
	s.Require().NoError(err)
	funder := s.newClient(s.config(s.validatorKey()))
	res, err := funder.Submit(context.Background(), send(funder.Address(), addr, amount))
	s.Require().NoError(err)
	s.Require().Zero(res.Code)
	return addr
}

// balance is addr's ugpu balance in the state after block height.
func (s *ChainSuite) balance(c *chainclient.Client, addr sdk.AccAddress, height int64) sdkmath.Int {
	res, err := banktypes.NewQueryClient(c.Context().WithHeight(height)).
		Balance(context.Background(), &banktypes.QueryBalanceRequest{Address: addr.String(), Denom: chaincfg.BondDenom})
	s.Require().NoError(err)
	return res.Balance.Amount
}

// waitNewBlock returns right after the next block is committed, which
// leaves a whole block interval before the one after it.
func (s *ChainSuite) waitNewBlock() {
	ctx := context.Background()
	st, err := s.rpc.Status(ctx)
	s.Require().NoError(err)
	start := st.SyncInfo.LatestBlockHeight
	s.Require().Eventually(func() bool {
		st, err := s.rpc.Status(ctx)
		return err == nil && st.SyncInfo.LatestBlockHeight > start
	}, 10*time.Second, 10*time.Millisecond)
}

// testAddr is a fresh account address named for its test.
func testAddr(name string) sdk.AccAddress { return sdk.AccAddress(tmhash.SumTruncated([]byte(name))) }

func send(from, to sdk.AccAddress, amount int64) *banktypes.MsgSend {
	return banktypes.NewMsgSend(from, to, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, amount)))
}

// logBuffer collects a client's logs, to see which recovery path ran.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) count(substr string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Count(b.buf.String(), substr)
}

func (b *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(b, nil)) }
