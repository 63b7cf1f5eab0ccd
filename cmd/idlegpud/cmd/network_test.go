package cmd_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	svrcmd "github.com/cosmos/cosmos-sdk/server/cmd"
	"github.com/cosmos/cosmos-sdk/testutil/network"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	govv1 "github.com/cosmos/cosmos-sdk/x/gov/types/v1"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/cmd/idlegpud/cmd"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// votingPeriod is short so the gov proposal in TestNetwork passes in seconds.
const votingPeriod = 15 * time.Second

// networkConfig is a 4-validator in-process network of the real idlegpu app
// with a short governance voting period and the fee floor a new node asks.
func networkConfig(t *testing.T) network.Config {
	cfg := apptesting.NetworkConfig(t, "idlegpu-net", 4)
	cfg.MinGasPrices = cmd.DefaultMinGasPrices
	var gov govv1.GenesisState
	cfg.Codec.MustUnmarshalJSON(cfg.GenesisState["gov"], &gov)
	vp, evp := votingPeriod, votingPeriod/2
	gov.Params.VotingPeriod = &vp
	gov.Params.ExpeditedVotingPeriod = &evp
	gov.Params.MinDeposit = sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 10_000_000))
	cfg.GenesisState["gov"] = cfg.Codec.MustMarshalJSON(&gov)
	return cfg
}

// cli runs the real idlegpud command tree, as a user would, against the
// network's RPC with validator i's key, and returns stdout.
type cli struct {
	t   *testing.T
	net *network.Network
}

func (c cli) run(i int, args ...string) string {
	c.t.Helper()
	out, err := c.exec(i, args...)
	require.NoError(c.t, err)
	return out
}

// exec is run for commands that may fail, e.g. while a tx is not yet in a block.
func (c cli) exec(i int, args ...string) (string, error) {
	val := c.net.Validators[i]
	clientDir := filepath.Join(val.Dir, "simcli")
	full := append(args, "--home", clientDir, "--node", c.net.Validators[0].RPCAddress, "--output", "json")
	root := cmd.NewRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(full)
	if err := svrcmd.Execute(root, "IDLEGPU", clientDir); err != nil {
		return "", fmt.Errorf("idlegpud %s: %w: %s", strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}

// tx runs a tx command from validator i's key and waits until it is in a
// block, requiring it to succeed.
func (c cli) tx(i int, args ...string) {
	c.t.Helper()
	c.wait(c.broadcast(i, args...))
}

// broadcast runs a tx command from validator i's key and returns the tx hash
// once the node accepted it into its mempool (--no-wait: several txs, such
// as the validators' votes, go into the same block).
func (c cli) broadcast(i int, args ...string) string {
	c.t.Helper()
	args = append(args, "--from", fmt.Sprintf("node%d", i), "--gas", "400000", "--fees", "1000"+chaincfg.BondDenom, "--yes", "--no-wait",
		"--chain-id", c.net.Config.ChainID, "--keyring-backend", "test")
	var res sdk.TxResponse
	require.NoError(c.t, c.net.Config.Codec.UnmarshalJSON([]byte(c.run(i, args...)), &res))
	require.Zero(c.t, res.Code, "check tx: %s", res.RawLog)
	return res.TxHash
}

// wait blocks until the tx is in a block and requires it to have succeeded.
func (c cli) wait(hash string) {
	c.t.Helper()
	var included sdk.TxResponse
	require.NoError(c.t, c.net.RetryForBlocks(func() error {
		out, err := c.exec(0, "q", "tx", hash)
		if err != nil {
			return err
		}
		return c.net.Config.Codec.UnmarshalJSON([]byte(out), &included)
	}, 5))
	require.Zero(c.t, included.Code, "tx %s failed: %s", hash, included.RawLog)
}

func TestNetwork(t *testing.T) {
	cfg := networkConfig(t)
	usdcHolder := withUSDCHolder(t, &cfg)
	net, err := network.New(t, t.TempDir(), cfg)
	require.NoError(t, err)
	defer net.Cleanup()
	_, err = net.WaitForHeight(2)
	require.NoError(t, err)
	usdcHolder.importKey(t, net.Validators[1])

	t.Run("tx commands as the guides write them", func(t *testing.T) {
		testTxAsWritten(t, cli{t: t, net: net}, usdcHolder)
	})

	t.Run("bank send through the CLI", func(t *testing.T) {
		c := cli{t: t, net: net}
		recipient := sdk.AccAddress([]byte("network-test-recvr__")).String()
		sender := net.Validators[1].Address.String()
		before := balance(t, c, sender)

		c.tx(1, "tx", "bank", "send", sender, recipient, "1234567"+chaincfg.BondDenom)

		require.Equal(t, sdkmath.NewInt(1_234_567), balance(t, c, recipient))
		require.Equal(t, before.Sub(sdkmath.NewInt(1_234_567+1_000)), balance(t, c, sender), "amount plus the fee, to the unit")
	})

	t.Run("gov proposal changes every market module's params", func(t *testing.T) {
		c := cli{t: t, net: net}
		gov := authtypes.NewModuleAddress("gov").String()
		proposal := map[string]any{
			"messages": []map[string]any{
				{"@type": "/idlegpu.provider.v1.MsgUpdateParams", "authority": gov, "params": withParam(t, c, "provider", "initial_reliability_bps", 8500)},
				{"@type": "/idlegpu.offer.v1.MsgUpdateParams", "authority": gov, "params": withParam(t, c, "offer", "payment_denoms", []string{"ugpu", "uusdc"})},
				{"@type": "/idlegpu.auction.v1.MsgUpdateParams", "authority": gov, "params": withParam(t, c, "auction", "clearing_rule", "CLEARING_RULE_FIRST_PRICE")},
				{"@type": "/idlegpu.settlement.v1.MsgUpdateParams", "authority": gov, "params": withParam(t, c, "settlement", "epoch_seconds", "60")},
			},
			"deposit": "10000000" + chaincfg.BondDenom,
			"title":   "Open the market to USDC with one-minute epochs",
			"summary": "Network test: one proposal updates all four market modules.",
		}
		bz, err := json.Marshal(proposal)
		require.NoError(t, err)
		path := filepath.Join(t.TempDir(), "proposal.json")
		require.NoError(t, os.WriteFile(path, bz, 0o600))

		c.tx(0, "tx", "gov", "submit-proposal", path)
		c.passProposal("1")

		require.EqualValues(t, 8500, params(t, c, "provider")["initial_reliability_bps"])
		require.Equal(t, []any{"ugpu", "uusdc"}, params(t, c, "offer")["payment_denoms"])
		require.Equal(t, "CLEARING_RULE_FIRST_PRICE", params(t, c, "auction")["clearing_rule"])
		require.Equal(t, "60", params(t, c, "settlement")["epoch_seconds"])
	})

	// The module's own autocli command makes the same kind of proposal; this
	// is the tx path every later market message takes.
	t.Run("autocli update-params-proposal", func(t *testing.T) {
		c := cli{t: t, net: net}
		p := withParam(t, c, "provider", "max_gpus_per_provider", 2048)
		bz, err := json.Marshal(p)
		require.NoError(t, err)
		c.tx(2, "tx", "provider", "update-params-proposal", string(bz),
			"--deposit", "10000000"+chaincfg.BondDenom, "--title", "More GPUs per provider", "--summary", "Raise the cap to 2048.")
		c.passProposal("2")

		got := params(t, c, "provider")
		require.EqualValues(t, 2048, got["max_gpus_per_provider"])
		require.EqualValues(t, 8500, got["initial_reliability_bps"], "the earlier proposal's change stays")
	})
}

// passProposal has every validator vote yes and waits until the proposal passed.
func (c cli) passProposal(id string) {
	c.t.Helper()
	// All vote in the same block or two, well inside the voting period.
	votes := make([]string, len(c.net.Validators))
	for i := range c.net.Validators {
		votes[i] = c.broadcast(i, "tx", "gov", "vote", id, "yes")
	}
	for _, hash := range votes {
		c.wait(hash)
	}
	require.NoError(c.t, c.net.RetryForBlocks(func() error {
		var res struct {
			Proposal struct {
				Status string `json:"status"`
			} `json:"proposal"`
		}
		out, err := c.exec(0, "q", "gov", "proposal", id)
		if err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			return err
		}
		if res.Proposal.Status != "PROPOSAL_STATUS_PASSED" {
			return fmt.Errorf("proposal %s status %s", id, res.Proposal.Status)
		}
		return nil
	}, int(2*votingPeriod/time.Second)))
}

// params returns a module's params as the CLI prints them.
func params(t *testing.T, c cli, module string) map[string]any {
	t.Helper()
	var res struct {
		Params map[string]any `json:"params"`
	}
	require.NoError(t, json.Unmarshal([]byte(c.run(0, "q", module, "params")), &res))
	require.NotEmpty(t, res.Params, module)
	return res.Params
}

// withParam returns a module's current params with one field changed.
func withParam(t *testing.T, c cli, module, field string, value any) map[string]any {
	t.Helper()
	p := params(t, c, module)
	p[field] = value
	return p
}

func balance(t *testing.T, c cli, addr string) sdkmath.Int {
	t.Helper()
	var res struct {
		Balance sdk.Coin `json:"balance"`
	}
	require.NoError(t, json.Unmarshal([]byte(c.run(0, "q", "bank", "balance", addr, chaincfg.BondDenom)), &res))
	return res.Balance.Amount
}
