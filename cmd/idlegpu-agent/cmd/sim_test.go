package cmd

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"

	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// paramsOnly answers x/provider's params, with allow_simulated_gpus set as
// given.
type paramsOnly struct {
	providertypes.QueryClient
	allow bool
}

func (p paramsOnly) Params(context.Context, *providertypes.QueryParamsRequest, ...grpc.CallOption) (*providertypes.QueryParamsResponse, error) {
	params := providertypes.DefaultParams()
	params.AllowSimulatedGpus = p.allow
	return &providertypes.QueryParamsResponse{Params: params}, nil
}

// TestSimulatedGPUsNeedTheChainsConsent: the sim backend goes only where
// the chain itself allows simulated GPUs, whatever its id says.
func TestSimulatedGPUsNeedTheChainsConsent(t *testing.T) {
	ctx := context.Background()
	require.NoError(t, requireSimAllowed(ctx, paramsOnly{allow: true}, "idlegpu-1"))
	err := requireSimAllowed(ctx, paramsOnly{allow: false}, "idlegpu-local")
	require.ErrorIs(t, err, errSimOnRealChain)
	require.EqualError(t, err, `simulated GPUs are for development chains only: gpu.backend is "sim" and chain "idlegpu-local" does not allow simulated GPUs (x/provider allow_simulated_gpus is false); use real GPUs (gpu.backend = "nvml" or "auto")`)
}
