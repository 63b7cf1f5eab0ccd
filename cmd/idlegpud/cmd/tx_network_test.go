package cmd_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	"github.com/cosmos/cosmos-sdk/crypto/hd"
	"github.com/cosmos/cosmos-sdk/crypto/keyring"
	"github.com/cosmos/cosmos-sdk/testutil"
	"github.com/cosmos/cosmos-sdk/testutil/network"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/cmd/idlegpud/cmd"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// usdcHolder is an account with uusdc and no ugpu, as a renter who came
// through the EVM bridge; its key is named usdcHolderKey.
type usdcHolder struct {
	addr     sdk.AccAddress
	mnemonic string
}

const (
	usdcHolderKey = "usdc-holder"
	usdcHeld      = 50_000_000 // 50 USDC
	// evmRecipient is where the withdrawals below would be paid.
	evmRecipient = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
)

// withUSDCHolder adds to cfg's genesis an account holding usdcHeld uusdc,
// pre-minted and so declared to x/bridge as unbacked, and the chain's
// denom metadata, which the CLI's messages show amounts in.
func withUSDCHolder(t *testing.T, cfg *network.Config) usdcHolder {
	t.Helper()
	addr, mnemonic, err := testutil.GenerateCoinKey(hd.Secp256k1, cfg.Codec)
	require.NoError(t, err)
	cdc := cfg.Codec

	var auth authtypes.GenesisState
	cdc.MustUnmarshalJSON(cfg.GenesisState[authtypes.ModuleName], &auth)
	acc, err := codectypes.NewAnyWithValue(authtypes.NewBaseAccount(addr, nil, 0, 0))
	require.NoError(t, err)
	auth.Accounts = append(auth.Accounts, acc)
	cfg.GenesisState[authtypes.ModuleName] = cdc.MustMarshalJSON(&auth)

	var bank banktypes.GenesisState
	cdc.MustUnmarshalJSON(cfg.GenesisState[banktypes.ModuleName], &bank)
	bank.Balances = append(bank.Balances, banktypes.Balance{Address: addr.String(), Coins: sdk.NewCoins(sdk.NewInt64Coin(chaincfg.USDCDenom, usdcHeld))})
	bank.DenomMetadata = app.DenomMetadata()
	cfg.GenesisState[banktypes.ModuleName] = cdc.MustMarshalJSON(&bank)

	var bridge bridgetypes.GenesisState
	cdc.MustUnmarshalJSON(cfg.GenesisState[bridgetypes.ModuleName], &bridge)
	require.Equal(t, chaincfg.USDCDenom, bridge.Params.Denom)
	bridge.Totals.Unbacked = bridge.Totals.Unbacked.AddRaw(usdcHeld)
	bridge.UnbackedHolders = append(bridge.UnbackedHolders, bridgetypes.UnbackedHolder{Address: addr.String(), Amount: sdkmath.NewInt(usdcHeld)})
	cfg.GenesisState[bridgetypes.ModuleName] = cdc.MustMarshalJSON(&bridge)
	return usdcHolder{addr: addr, mnemonic: mnemonic}
}

// importKey puts the holder's key into val's client keyring.
func (h usdcHolder) importKey(t *testing.T, val *network.Validator) {
	t.Helper()
	_, err := val.ClientCtx.Keyring.NewAccount(usdcHolderKey, h.mnemonic, keyring.DefaultBIP39Passphrase, sdk.GetConfig().GetFullBIP44Path(), hd.Secp256k1)
	require.NoError(t, err)
}

// txExit runs a tx command with validator i's keyring as a user does,
// through cmd.Execute, with no gas or fee flags of its own: the exit
// status, stdout and stderr.
func (c cli) txExit(i int, args ...string) (int, string, string) {
	c.t.Helper()
	clientDir := filepath.Join(c.net.Validators[i].Dir, "simcli")
	full := append(args, "--home", clientDir, "--node", c.net.Validators[0].RPCAddress, "--output", "json",
		"--chain-id", c.net.Config.ChainID, "--keyring-backend", "test", "--yes")
	root := cmd.NewRootCmd()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	code := cmd.Execute(root, full)
	return code, out.String(), errb.String()
}

// printedTx is what a tx command prints, as far as these tests read it.
type printedTx struct {
	Height    string `json:"height"`
	TxHash    string `json:"txhash"`
	Code      uint32 `json:"code"`
	Codespace string `json:"codespace"`
	RawLog    string `json:"raw_log"`
	GasWanted string `json:"gas_wanted"`
	GasUsed   string `json:"gas_used"`
	Tx        struct {
		AuthInfo struct {
			Fee struct {
				Amount   sdk.Coins `json:"amount"`
				GasLimit string    `json:"gas_limit"`
			} `json:"fee"`
		} `json:"auth_info"`
	} `json:"tx"`
}

func printed(t *testing.T, out string) printedTx {
	t.Helper()
	var res printedTx
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	return res
}

func number(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	require.NoError(t, err, s)
	return n
}

// floorFee is what the node's floor asks for gas, in denom: ceil(0.0025 × gas).
func floorFee(t *testing.T, gas, denom string) sdk.Coin {
	t.Helper()
	return sdk.NewCoin(denom, sdkmath.LegacyMustNewDecFromStr("0.0025").MulInt64(int64(number(t, gas))).Ceil().TruncateInt())
}

func balanceOf(t *testing.T, c cli, addr, denom string) sdkmath.Int {
	t.Helper()
	var res struct {
		Balance sdk.Coin `json:"balance"`
	}
	require.NoError(t, json.Unmarshal([]byte(c.run(0, "q", "bank", "balance", addr, denom)), &res))
	return res.Balance.Amount
}

var sequenceRe = regexp.MustCompile(`"sequence":\s*"?(\d+)`)

func sequence(t *testing.T, c cli, addr string) string {
	t.Helper()
	out := c.run(0, "q", "auth", "account", addr)
	m := sequenceRe.FindStringSubmatch(out)
	require.NotNil(t, m, "no sequence in %s's account: %s", addr, out)
	return m[1]
}

// testTxAsWritten runs tx commands as the guides write them, without gas
// or fee flags, and with the flags that change what they do.
func testTxAsWritten(t *testing.T, c cli, holder usdcHolder) {
	sender := c.net.Validators[1].Address.String()
	recipient := sdk.AccAddress([]byte("tx-defaults-recvr___")).String()

	t.Run("no --fees or --gas: simulated, pays the floor in ugpu, printed as committed", func(t *testing.T) {
		before := balanceOf(t, c, sender, "ugpu")
		code, out, errOut := c.txExit(1, "tx", "bank", "send", sender, recipient, "1000ugpu")
		require.Equal(t, 0, code, errOut)
		require.Empty(t, errOut)
		res := printed(t, out)
		require.Zero(t, res.Code, res.RawLog)
		require.NotZero(t, number(t, res.Height), "the committed tx, not the mempool check's answer")
		require.Equal(t, res.GasWanted, res.Tx.AuthInfo.Fee.GasLimit)
		require.Greater(t, number(t, res.GasWanted), number(t, res.GasUsed), "simulated gas, with a margin")
		fee := floorFee(t, res.GasWanted, "ugpu")
		require.Equal(t, sdk.NewCoins(fee), res.Tx.AuthInfo.Fee.Amount)
		// The command returned once the tx was in a block: no retry needed.
		require.Equal(t, before.SubRaw(1000).Sub(fee.Amount), balanceOf(t, c, sender, "ugpu"), "amount plus the floor fee, to the unit")
	})

	t.Run("an account with only uusdc pays its fee in uusdc", func(t *testing.T) {
		addr := holder.addr.String()
		before := balanceOf(t, c, addr, "uusdc")
		code, out, errOut := c.txExit(1, "tx", "bank", "send", usdcHolderKey, recipient, "1000uusdc")
		require.Equal(t, 0, code, errOut)
		res := printed(t, out)
		require.Zero(t, res.Code, res.RawLog)
		fee := floorFee(t, res.GasWanted, "uusdc")
		require.Equal(t, sdk.NewCoins(fee), res.Tx.AuthInfo.Fee.Amount)
		require.Equal(t, before.SubRaw(1000).Sub(fee.Amount), balanceOf(t, c, addr, "uusdc"))
		require.True(t, balanceOf(t, c, addr, "ugpu").IsZero())
	})

	t.Run("--fees wins", func(t *testing.T) {
		before := balanceOf(t, c, sender, "ugpu")
		code, out, errOut := c.txExit(1, "tx", "bank", "send", sender, recipient, "1000ugpu", "--fees", "777ugpu")
		require.Equal(t, 0, code, errOut)
		res := printed(t, out)
		require.Zero(t, res.Code, res.RawLog)
		require.Equal(t, sdk.NewCoins(sdk.NewInt64Coin("ugpu", 777)), res.Tx.AuthInfo.Fee.Amount)
		require.Equal(t, before.SubRaw(1000+777), balanceOf(t, c, sender, "ugpu"))
	})

	t.Run("--no-wait prints the mempool check's answer", func(t *testing.T) {
		code, out, errOut := c.txExit(1, "tx", "bank", "send", sender, recipient, "1ugpu", "--no-wait")
		require.Equal(t, 0, code, errOut)
		res := printed(t, out)
		require.Zero(t, res.Code, res.RawLog)
		require.Equal(t, "0", res.Height)
		c.wait(res.TxHash)
	})

	t.Run("below the floor: the node refuses it, exit status 1", func(t *testing.T) {
		before := balanceOf(t, c, sender, "ugpu")
		code, out, errOut := c.txExit(1, "tx", "bank", "send", sender, recipient, "1000ugpu", "--gas", "400000", "--fees", "1ugpu")
		require.Equal(t, 1, code, out)
		res := printed(t, out)
		require.Equal(t, fmt.Sprintf("Error: the node refused tx %s with code 13 (sdk): "+
			"insufficient fees; got: 1ugpu required: 1000ugpu,1000uusdc: insufficient fee\n", res.TxHash), errOut)
		require.NoError(t, c.net.WaitForNextBlock())
		require.Equal(t, before, balanceOf(t, c, sender, "ugpu"))
	})

	t.Run("fails in its block: exit status 1 with the chain's code and log", func(t *testing.T) {
		// Explicit gas, so no simulation refuses it first: it pays its fee.
		before := balanceOf(t, c, sender, "ugpu")
		code, out, errOut := c.txExit(1, "tx", "bridge", "withdraw-to-evm", evmRecipient, "1000000uusdc", "--from", "node1",
			"--gas", "300000", "--fees", "1000ugpu")
		require.Equal(t, 1, code, out)
		res := printed(t, out)
		require.NotZero(t, number(t, res.Height))
		require.Equal(t, uint32(20), res.Code)
		require.Equal(t, "bridge", res.Codespace)
		const log = "failed to execute message; message index: 0: has 0uusdc, withdraws 1000000uusdc: insufficient funds"
		require.Equal(t, log, res.RawLog)
		require.Equal(t, fmt.Sprintf("Error: tx %s failed in block %s with code 20 (bridge): %s\n", res.TxHash, res.Height, log), errOut)
		require.Equal(t, before.SubRaw(1000), balanceOf(t, c, sender, "ugpu"), "the fee, and nothing else")
	})

	t.Run("fails in simulation: nothing is sent", func(t *testing.T) {
		before, seq := balanceOf(t, c, sender, "ugpu"), sequence(t, c, sender)
		code, out, errOut := c.txExit(1, "tx", "bridge", "withdraw-to-evm", evmRecipient, "1000000uusdc", "--from", "node1")
		require.Equal(t, 1, code, out)
		require.Empty(t, out)
		require.Equal(t, "Error: the tx fails in simulation, so nothing was sent: "+
			"failed to execute message; message index: 0: has 0uusdc, withdraws 1000000uusdc: insufficient funds\n", errOut)
		require.NoError(t, c.net.WaitForNextBlock())
		require.Equal(t, before, balanceOf(t, c, sender, "ugpu"), "no fee")
		require.Equal(t, seq, sequence(t, c, sender))
	})

	t.Run("a withdrawal below the minimum is refused before anything is signed", func(t *testing.T) {
		addr := holder.addr.String()
		before, seq := balanceOf(t, c, addr, "uusdc"), sequence(t, c, addr)
		// Base or display units, the same amount and the same refusal.
		for _, amount := range []string{"999999uusdc", "0.999999usdc", "0.999999 USDC"} {
			code, out, errOut := c.txExit(1, "tx", "bridge", "withdraw-to-evm", evmRecipient, amount, "--from", usdcHolderKey)
			require.Equal(t, 1, code, out)
			require.Empty(t, out)
			require.Equal(t, "Error: amount: 0.999999 USDC is below the minimum withdrawal of 1.00 USDC (x/bridge min_withdrawal)\n", errOut, amount)
		}
		require.NoError(t, c.net.WaitForNextBlock())
		require.NoError(t, c.net.WaitForNextBlock())
		require.Equal(t, before, balanceOf(t, c, addr, "uusdc"), "no fee")
		require.Equal(t, seq, sequence(t, c, addr), "nothing signed into a block")
	})
}
