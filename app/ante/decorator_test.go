package ante_test

import (
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/ante"
	"github.com/idlegpu/idlegpu/app/apptesting"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

const (
	jobDigest   = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	jobManifest = "a3f1c2d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
)

var startFunds = sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 1_000_000_000))

// postJob is a one-GPU, one-hour BRONZE job at most maxPrice ugpu per GPU-hour:
// its deposit is exactly maxPrice, held in escrow for its 100-block bid window.
func postJob(renter sdk.AccAddress, maxPrice int64) *auctiontypes.MsgPostJob {
	return &auctiontypes.MsgPostJob{Renter: renter.String(), Spec: auctiontypes.JobSpec{
		Image: "ghcr.io/acme/train@" + jobDigest, ImageDigest: jobDigest, ManifestHash: jobManifest,
		Workload: offertypes.WORKLOAD_TRAINING, GpuCount: 1, Tier: auctiontypes.TIER_BRONZE, Preemptible: true,
		DurationSeconds: 3600, MaxPrice: sdk.NewInt64Coin(chaincfg.BondDenom, maxPrice), BidWindowBlocks: 100,
	}}
}

// checkAndDeliver runs bz through CheckTx, then in the next block, and
// returns both results.
func checkAndDeliver(t *testing.T, a *app.App, bz []byte) (*abci.ResponseCheckTx, *abci.ExecTxResult) {
	t.Helper()
	check, err := a.CheckTx(&abci.RequestCheckTx{Tx: bz, Type: abci.CheckTxType_New})
	require.NoError(t, err)
	res := apptesting.NextBlock(t, a, bz)
	require.Len(t, res.TxResults, 1)
	return check, res.TxResults[0]
}

func balances(a *app.App, addr sdk.AccAddress) sdk.Coins {
	return a.BankKeeper.GetAllBalances(a.NewContext(true), addr)
}

// TestOctalMaxPriceRefused: a job signed with max_price "00001234567" is a
// price of 342,391 to math.Int (octal) while a wallet shows 1,234,567. The
// ante handler refuses it in CheckTx and in the block, before fees, and
// nothing moves.
func TestOctalMaxPriceRefused(t *testing.T) {
	accs := apptesting.NewAccounts(1, startFunds)
	a := apptesting.Setup(t, accs)
	renter := accs[0]
	msg := postJob(renter.Address, 1_234_567)
	bz := signedTx(t, a, renter, msg, packWith(t, resolver(a), msg, "spec.max_price.amount", "00001234567"))

	// The app's own decoder reads the signed text as 342391: that is what
	// would be escrowed and bid against.
	tx, err := a.TxConfig().TxDecoder()(bz)
	require.NoError(t, err)
	require.Equal(t, "342391ugpu", tx.GetMsgs()[0].(*auctiontypes.MsgPostJob).Spec.MaxPrice.String())

	check, deliver := checkAndDeliver(t, a, bz)
	for _, res := range []struct {
		codespace, log string
		code           uint32
	}{{check.Codespace, check.Log, check.Code}, {deliver.Codespace, deliver.Log, deliver.Code}} {
		require.Equal(t, ante.Codespace, res.codespace, res.log)
		require.Equal(t, ante.ErrNonCanonicalNumber.ABCICode(), res.code, res.log)
		require.Contains(t, res.log, `body.messages[0].spec.max_price.amount: "00001234567" is not a canonical decimal integer`)
	}

	// Nothing moved: no fee, no deposit, no job.
	require.Equal(t, startFunds, balances(a, renter.Address))
	require.True(t, balances(a, authtypes.NewModuleAddress(auctiontypes.EscrowAccount)).IsZero())
	_, err = a.AuctionKeeper.Job(a.NewContext(true), 1)
	require.ErrorIs(t, err, auctiontypes.ErrJobNotFound)
}

// TestNonCanonicalAmountsRefused runs each spelling through CheckTx and a
// block: every non-canonical one is refused by the ante handler; canonical
// ones reach the message handler (which refuses a price of 0 itself).
func TestNonCanonicalAmountsRefused(t *testing.T) {
	accs := apptesting.NewAccounts(2, startFunds)
	a := apptesting.Setup(t, accs)
	renter := accs[0]
	escrow := authtypes.NewModuleAddress(auctiontypes.EscrowAccount)

	testCases := []struct {
		amount       string
		expCodespace string
		expCode      uint32
		expEscrow    int64
	}{
		{amount: "0x10", expCodespace: ante.Codespace, expCode: ante.ErrNonCanonicalNumber.ABCICode()},
		{amount: "0b1", expCodespace: ante.Codespace, expCode: ante.ErrNonCanonicalNumber.ABCICode()},
		{amount: "1_000", expCodespace: ante.Codespace, expCode: ante.ErrNonCanonicalNumber.ABCICode()},
		{amount: "+5", expCodespace: ante.Codespace, expCode: ante.ErrNonCanonicalNumber.ABCICode()},
		// ValidateBasic runs before the ante handler: a negative or zero
		// price is refused as a price, free, in CheckTx.
		{amount: "-0", expCodespace: auctiontypes.ModuleName, expCode: auctiontypes.ErrInvalidPrice.ABCICode()},
		{amount: "007", expCodespace: ante.Codespace, expCode: ante.ErrNonCanonicalNumber.ABCICode()},
		{amount: "0", expCodespace: auctiontypes.ModuleName, expCode: auctiontypes.ErrInvalidPrice.ABCICode()},
		{amount: "10", expEscrow: 10},
	}
	for _, tc := range testCases {
		t.Run(tc.amount, func(t *testing.T) {
			msg := postJob(renter.Address, 1)
			before := balances(a, renter.Address)
			check, deliver := checkAndDeliver(t, a, signedTx(t, a, renter, msg, packWith(t, resolver(a), msg, "spec.max_price.amount", tc.amount)))
			require.Equal(t, tc.expCodespace, deliver.Codespace, deliver.Log)
			require.Equal(t, tc.expCode, deliver.Code, deliver.Log)
			if tc.expCode != 0 {
				require.Equal(t, tc.expCodespace, check.Codespace, check.Log)
				require.Equal(t, tc.expCode, check.Code, check.Log)
				require.Equal(t, before, balances(a, renter.Address), "a refused tx pays no fee")
			}
			if tc.expCodespace == ante.Codespace {
				require.Contains(t, deliver.Log, `body.messages[0].spec.max_price.amount: "`+tc.amount+`" is not a canonical decimal integer`)
			}
			require.Equal(t, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, tc.expEscrow)), balances(a, escrow))
		})
	}

	// Any message type: a bank transfer of "0x10" is refused too.
	send := banktypes.NewMsgSend(renter.Address, accs[1].Address, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 16)))
	check, deliver := checkAndDeliver(t, a, signedTx(t, a, renter, send, packWith(t, resolver(a), send, "amount[0].amount", "0x10")))
	require.Equal(t, ante.ErrNonCanonicalNumber.ABCICode(), check.Code, check.Log)
	require.Equal(t, ante.ErrNonCanonicalNumber.ABCICode(), deliver.Code, deliver.Log)
	require.Equal(t, startFunds, balances(a, accs[1].Address))
}
