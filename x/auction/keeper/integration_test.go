package keeper_test

import (
	"fmt"
	"testing"
	"time"

	sdkmath "cosmossdk.io/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// TestSignedMarketTransactions runs the market as clients do — signed
// transactions through the ante handler and router in real blocks — and
// reports the gas MsgPostJob and MsgPlaceBid use (docs/benchmarks.md).
func TestSignedMarketTransactions(t *testing.T) {
	accs := apptesting.NewAccounts(2, apptesting.MarketFunds())
	a := apptesting.NewApp(t)
	gen := apptesting.Genesis(t, a, apptesting.NewValidator(), accs)
	og := offertypes.DefaultGenesis()
	og.Params.PaymentDenoms = []string{chaincfg.BondDenom, chaincfg.USDCDenom}
	gen[offertypes.ModuleName] = a.AppCodec().MustMarshalJSON(og)
	gpu := apptesting.GPU(1, h100, 81559)
	apptesting.PassesInGenesis(t, a, gen, accs[0].Address.String(), gpu.Uuid)
	apptesting.InitChain(t, a, gen)
	apptesting.NextBlock(t, a)

	op, renter := accs[0].Address.String(), accs[1].Address.String()
	res := apptesting.DeliverTx(t, a, accs[0],
		&providertypes.MsgRegisterProvider{Operator: op, Moniker: "rack", Region: "eu-de", Endpoint: "https://gpu.example.com", TlsCertSha256: certHash},
		&providertypes.MsgRegisterGPUs{Signer: op, Provider: op, Gpus: []providertypes.GPUInfo{gpu}},
		&providertypes.MsgBond{Operator: op, Amount: sdk.NewInt64Coin(chaincfg.BondDenom, stakePerGPU)},
		&offertypes.MsgCreateOffer{Signer: op, Provider: op, GpuUuids: []string{gpu.Uuid}, Terms: apptesting.Terms(1_000_000)},
	)
	require.Zero(t, res.Code, res.Log)

	sp := spec(1, 2_000_000, 2)
	sp.Tier, sp.Preemptible = types.TIER_BRONZE, true // a new provider's 9000 bps serves BRONZE
	post := apptesting.DeliverTx(t, a, accs[1], &types.MsgPostJob{Renter: renter, Spec: sp})
	require.Zero(t, post.Code, post.Log)
	bid := apptesting.DeliverTx(t, a, accs[0], &types.MsgPlaceBid{
		Signer: op, Provider: op, JobId: 1, OfferId: 1, Price: *usdc(600_000), GpuCount: 1,
	})
	require.Zero(t, bid.Code, bid.Log)
	fmt.Printf("gas used: MsgPostJob %d, MsgPlaceBid %d\n", post.GasUsed, bid.GasUsed)
	require.Less(t, post.GasUsed, int64(150_000))
	require.Less(t, bid.GasUsed, int64(150_000))

	// A bid below the floor fails with x/auction's code; fee paid, nothing else.
	bad := apptesting.DeliverTx(t, a, accs[0], &types.MsgPlaceBid{Signer: op, Provider: op, JobId: 1, OfferId: 1, Price: *usdc(1), GpuCount: 1})
	require.Equal(t, types.ModuleName, bad.Codespace)
	require.Equal(t, types.ErrBidBelowFloor.ABCICode(), bad.Code)

	// The deadline block clears the job. One provider competes with its
	// best candidate — its standing offer at 0.5 beats its own 0.6 bid — and
	// a single candidate is paid its ask.
	apptesting.NextBlock(t, a)
	ctx := a.NewContext(true)
	job, err := a.AuctionKeeper.Job(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, types.JOB_STATUS_MATCHED, job.Status)
	require.Equal(t, "500000uusdc", job.ClearingPrice.String())
	require.NoError(t, a.AuctionKeeper.CheckInvariants(ctx))
	require.NoError(t, a.OfferKeeper.CheckInvariants(ctx))
}

// TestWalletSignedJobThroughTheApp: an Ethereum key with funds on chain and
// no Cosmos key posts a job only by signature; a relayer's real tx carries
// it through the ante handler and router, is paid its fee, and the same
// signed bid in a later tx is refused with x/auction's code.
func TestWalletSignedJobThroughTheApp(t *testing.T) {
	accs := apptesting.NewAccounts(2, apptesting.MarketFunds())
	a := apptesting.NewApp(t)
	gen := apptesting.Genesis(t, a, apptesting.NewValidator(), accs)
	og := offertypes.DefaultGenesis()
	og.Params.PaymentDenoms = []string{chaincfg.BondDenom, chaincfg.USDCDenom}
	gen[offertypes.ModuleName] = a.AppCodec().MustMarshalJSON(og)
	apptesting.InitChain(t, a, gen)
	apptesting.NextBlock(t, a)

	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	renter := sdk.AccAddress(crypto.PubkeyToAddress(key.PublicKey).Bytes())
	fund := apptesting.DeliverTx(t, a, accs[1], banktypes.NewMsgSend(accs[1].Address, renter, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.USDCDenom, 10_000_000))))
	require.Zero(t, fund.Code, fund.Log)

	bid := types.JobBid{
		Renter: renter.String(), Spec: spec(1, 2_000_000, 2), CosmosChainId: apptesting.ChainID, Nonce: 1,
		Deadline: uint64(apptesting.GenesisTime.Add(time.Hour).Unix()), MaxRelayerFee: sdkmath.NewInt(40_000),
		EvmChainId: bridgetypes.DefaultEVMChainID, VerifyingContract: bridgetypes.DefaultVaultAddress,
	}
	sig, err := wallet.SignJobBid(bid, key)
	require.NoError(t, err)
	relayer := accs[0]
	msg := &types.MsgSubmitSignedJob{Submitter: relayer.Address.String(), Bid: bid, Signature: sig, RelayerFee: sdkmath.NewInt(40_000)}
	res := apptesting.DeliverTx(t, a, relayer, msg)
	require.Zero(t, res.Code, res.Log)
	fmt.Printf("gas used: MsgSubmitSignedJob %d\n", res.GasUsed)

	ctx := a.NewContext(true)
	job, err := a.AuctionKeeper.Job(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, renter.String(), job.Renter)
	// Deposit ceil(2 USDC × 2 h) = 4,000,000 and the 40,000 fee leave 5,960,000.
	require.Equal(t, "5960000uusdc", a.BankKeeper.GetBalance(ctx, renter, chaincfg.USDCDenom).String())
	require.Equal(t, apptesting.StartBalance.AddRaw(40_000), a.BankKeeper.GetBalance(ctx, relayer.Address, chaincfg.USDCDenom).Amount)

	again := apptesting.DeliverTx(t, a, relayer, msg)
	require.Equal(t, types.ModuleName, again.Codespace)
	require.Equal(t, types.ErrNonceUsed.ABCICode(), again.Code)
	require.NoError(t, a.AuctionKeeper.CheckInvariants(a.NewContext(true)))
}
