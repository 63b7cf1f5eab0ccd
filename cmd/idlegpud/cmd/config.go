package cmd

import (
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"

	"github.com/idlegpu/idlegpu/x/base/chaincfg"

	serverconfig "github.com/cosmos/cosmos-sdk/server/config"
)

// minGasPrice is the spam floor's price of a unit of gas, in base units of
// each fee denom.
const minGasPrice = "0.0025"

// DefaultMinGasPrices is the least fee a node accepts into its mempool unless
// the operator sets another in app.toml: a spam floor far below any real
// market price (a 200k-gas tx costs 500ugpu = 0.0005 GPU, or 500uusdc =
// 0.0005 USDC). The SDK's mempool check takes a fee that meets the floor of
// any one of its denoms, so a renter who came through the EVM bridge and
// holds only USDC can pay its own fees; the CLI picks the denom (autoGasPrice).
const DefaultMinGasPrices = minGasPrice + chaincfg.BondDenom + "," + minGasPrice + chaincfg.USDCDenom

// DefaultTimeoutCommit is the pause after each block that `init` writes:
// one second suits local networks and the demo; public networks may raise it.
const DefaultTimeoutCommit = time.Second

// DefaultIndexEvents are the events a new node indexes for tx search
// (app.toml index-events; tx.hash and tx.height always are): who sent what,
// coin transfers for wallets, and the market's ids, so a renter finds the
// txs of a job or lease and a provider its own. The per-bid and per-proof
// events stay in the blocks and out of the index: indexing every event cost
// the node a fifth of its CPU at full load (docs/benchmarks.md). An
// explorer's node may set index-events = [] to index everything.
var DefaultIndexEvents = []string{
	"message.action",
	"message.sender",
	"transfer.recipient",
	"transfer.sender",
	"idlegpu.auction.v1.EventJobCleared.job_id",
	"idlegpu.auction.v1.EventLeaseStarted.lease_id",
	"idlegpu.auction.v1.EventLeaseStarted.provider",
	"idlegpu.auction.v1.EventLeaseEnded.lease_id",
	"idlegpu.provider.v1.EventSlashed.provider",
	"idlegpu.settlement.v1.EventFraudProven.provider",
	"idlegpu.settlement.v1.EventRewardsClaimed.operator",
}

// initAppConfig returns app.toml's template and defaults.
func initAppConfig() (string, any) {
	cfg := serverconfig.DefaultConfig()
	cfg.MinGasPrices = DefaultMinGasPrices
	cfg.IndexEvents = DefaultIndexEvents
	return serverconfig.DefaultConfigTemplate, cfg
}

// initCometBFTConfig returns config.toml's defaults.
func initCometBFTConfig() *cmtcfg.Config {
	return cmtcfg.DefaultConfig()
}
