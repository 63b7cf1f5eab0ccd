package keeper_test

import (
	"testing"
	"time"

	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	"github.com/ethereum/go-ethereum/crypto"

	sdkmath "cosmossdk.io/math"

	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
	"github.com/idlegpu/idlegpu/x/auction/keeper"
	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// BenchmarkPostJob and BenchmarkSubmitSignedJob measure delivering the
// same job through the msg server in the real app: posted by a Cosmos
// account (its tx signature is checked by the ante handler, not here), or
// carried by a relayer with the renter's EIP-712 signature checked by the
// message (docs/benchmarks.md). Each run starts from the same committed
// state in a fresh cache store, so one signed bid's nonce is fresh in each.
//
//	go test ./x/auction/keeper -run '^$' -bench 'BenchmarkPostJob|BenchmarkSubmitSignedJob' -benchtime 2000x
func BenchmarkPostJob(b *testing.B) {
	a, relayer, _, bid := benchSigned(b)
	msg := &types.MsgPostJob{Renter: relayer.String(), Spec: bid.Spec}
	ms := keeper.NewMsgServerImpl(a.AuctionKeeper)
	benchDeliver(b, a, func(ctx sdk.Context) error { _, err := ms.PostJob(ctx, msg); return err })
}

func BenchmarkSubmitSignedJob(b *testing.B) {
	a, relayer, sig, bid := benchSigned(b)
	msg := &types.MsgSubmitSignedJob{Submitter: relayer.String(), Bid: bid, Signature: sig, RelayerFee: sdkmath.NewInt(40_000)}
	ms := keeper.NewMsgServerImpl(a.AuctionKeeper)
	benchDeliver(b, a, func(ctx sdk.Context) error { _, err := ms.SubmitSignedJob(ctx, msg); return err })
}

func benchDeliver(b *testing.B, a *app.App, deliver func(sdk.Context) error) {
	var gas storetypes.Gas
	for b.Loop() {
		b.StopTimer()
		base := a.NewNextBlockContext(cmtproto.Header{ChainID: apptesting.ChainID, Height: a.LastBlockHeight() + 1, Time: apptesting.LastBlockTime(a).Add(time.Second)})
		ctx, _ := base.CacheContext()
		ctx = ctx.WithGasMeter(storetypes.NewInfiniteGasMeter())
		b.StartTimer()
		err := deliver(ctx)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		gas = ctx.GasMeter().GasConsumed()
		b.StartTimer()
	}
	b.ReportMetric(float64(gas), "gas/msg")
}

// benchSigned is a chain with a relayer (a Cosmos account, also the
// unsigned renter) and a funded wallet account, and the wallet's signed
// bid for a 1-GPU, 2-hour job.
func benchSigned(b *testing.B) (*app.App, sdk.AccAddress, []byte, types.JobBid) {
	b.Helper()
	accs := apptesting.NewAccounts(2, apptesting.MarketFunds())
	a := apptesting.NewApp(b)
	gen := apptesting.Genesis(b, a, apptesting.NewValidator(), accs)
	og := offertypes.DefaultGenesis()
	og.Params.PaymentDenoms = []string{chaincfg.BondDenom, chaincfg.USDCDenom}
	gen[offertypes.ModuleName] = a.AppCodec().MustMarshalJSON(og)
	apptesting.InitChain(b, a, gen)
	apptesting.NextBlock(b, a)

	key, err := crypto.GenerateKey()
	if err != nil {
		b.Fatal(err)
	}
	renter := sdk.AccAddress(crypto.PubkeyToAddress(key.PublicKey).Bytes())
	if res := apptesting.DeliverTx(b, a, accs[1], banktypes.NewMsgSend(accs[1].Address, renter, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.USDCDenom, 10_000_000)))); res.Code != 0 {
		b.Fatal(res.Log)
	}
	apptesting.NextBlock(b, a)
	bid := types.JobBid{
		Renter: renter.String(), Spec: spec(1, 2_000_000, 2), CosmosChainId: apptesting.ChainID, Nonce: 1,
		Deadline: uint64(apptesting.LastBlockTime(a).Add(time.Hour).Unix()), MaxRelayerFee: sdkmath.NewInt(40_000),
		EvmChainId: bridgetypes.DefaultEVMChainID, VerifyingContract: bridgetypes.DefaultVaultAddress,
	}
	sig, err := wallet.SignJobBid(bid, key)
	if err != nil {
		b.Fatal(err)
	}
	return a, accs[0].Address, sig, bid
}
