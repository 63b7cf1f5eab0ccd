package keeper_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// TestSignedTransactions sends x/provider messages as signed transactions
// through the real ante handler and message router, as a client would, and
// checks what clients see: success, or the module's codespace and code.
func TestSignedTransactions(t *testing.T) {
	accs := apptesting.NewAccounts(2, sdk.NewCoins(sdk.NewCoin(chaincfg.BondDenom, startBalance)))
	a := apptesting.Setup(t, accs)
	op := accs[0].Address.String()

	res := apptesting.DeliverTx(t, a, accs[0], &types.MsgRegisterProvider{
		Operator: op, Moniker: "rack", Region: "eu-de", Endpoint: "https://gpu.example.com", TlsCertSha256: certHash,
	})
	require.Zero(t, res.Code, res.Log)

	// A bad region is refused with the module's own code by ValidateBasic,
	// before the ante handler: no fee is paid.
	res = apptesting.DeliverTx(t, a, accs[1], &types.MsgRegisterProvider{
		Operator: accs[1].Address.String(), Moniker: "rack", Region: "eu-west", Endpoint: "https://gpu.example.com", TlsCertSha256: certHash,
	})
	require.Equal(t, types.ModuleName, res.Codespace)
	require.Equal(t, types.ErrInvalidRegion.ABCICode(), res.Code)
	ctx := a.NewContext(true)
	require.Equal(t, startBalance, a.BankKeeper.GetBalance(ctx, accs[1].Address, chaincfg.BondDenom).Amount)
	_, err := a.ProviderKeeper.Provider(ctx, accs[1].Address)
	require.ErrorIs(t, err, types.ErrProviderNotFound)

	// Two messages in one tx, GPUs and stake: all or nothing.
	res = apptesting.DeliverTx(t, a, accs[0],
		&types.MsgRegisterGPUs{Signer: op, Provider: op, Gpus: gpus(0, 2)},
		&types.MsgBond{Operator: op, Amount: ugpu(200_000_000)},
	)
	require.Zero(t, res.Code, res.Log)
	res = apptesting.DeliverTx(t, a, accs[0],
		&types.MsgBond{Operator: op, Amount: ugpu(1)},
		&types.MsgRegisterGPUs{Signer: op, Provider: op, Gpus: gpus(0, 1)}, // already registered
	)
	require.Equal(t, types.ErrGPUAlreadyRegistered.ABCICode(), res.Code)

	ctx = a.NewContext(true)
	p, err := a.ProviderKeeper.Provider(ctx, accs[0].Address)
	require.NoError(t, err)
	require.Equal(t, ugpu(200_000_000), p.Stake, "the failed tx's bond was rolled back")
	require.EqualValues(t, 2, p.GpuCount)
	require.Equal(t, types.PROVIDER_STATUS_ACTIVE, p.Status)
	require.NoError(t, a.ProviderKeeper.CheckInvariants(ctx))
}
