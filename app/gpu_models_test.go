package app_test

import (
	"math"
	"testing"

	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/app/apptesting"
	providerkeeper "github.com/idlegpu/idlegpu/x/provider/keeper"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// TestRegisterGPUsUsesSettlementModelTable: the app wires x/settlement's
// gpu_models into x/provider, so a GPU of an unlisted model, or one
// claiming more memory than its model has, is refused at registration.
func TestRegisterGPUsUsesSettlementModelTable(t *testing.T) {
	accs := apptesting.NewAccounts(1, funds)
	a := apptesting.Setup(t, accs)
	ctx := a.NewNextBlockContext(cmtproto.Header{ChainID: apptesting.ChainID, Height: a.LastBlockHeight() + 1, Time: apptesting.GenesisTime})
	op := accs[0].Address.String()
	msgs := providerkeeper.NewMsgServerImpl(a.ProviderKeeper)
	_, err := msgs.RegisterProvider(ctx, &providertypes.MsgRegisterProvider{
		Operator: op, Moniker: "rack", Region: "eu-de", Endpoint: "http://127.0.0.1:8443",
	})
	require.NoError(t, err)
	gpu := func(model string, mib uint64) providertypes.GPUInfo {
		return providertypes.GPUInfo{Uuid: "GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ab", Model: model, MemoryMib: mib,
			PciBusId: "00000000:3B:00.0", DriverVersion: "550.54.15", VbiosVersion: "96.00.89.00.01"}
	}
	register := func(g providertypes.GPUInfo) error {
		_, err := msgs.RegisterGPUs(ctx, &providertypes.MsgRegisterGPUs{Signer: op, Provider: op, Gpus: []providertypes.GPUInfo{g}})
		return err
	}
	require.ErrorIs(t, register(gpu("NVIDIA H100 80GB HBM3", math.MaxUint64)), providertypes.ErrInvalidGPU)
	require.ErrorIs(t, register(gpu("NVIDIA Imaginary 1TB", 1<<20)), providertypes.ErrUnknownGPUModel)
	require.NoError(t, register(gpu("NVIDIA H100 80GB HBM3", 81559)))
}
