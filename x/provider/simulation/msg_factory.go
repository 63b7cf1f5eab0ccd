package simulation

import (
	"context"
	"fmt"

	"github.com/cosmos/cosmos-sdk/testutil/simsx"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/keeper"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// MsgUpdateParamsFactory makes gov proposals that replace the params with random valid ones.
func MsgUpdateParamsFactory() simsx.SimMsgFactoryFn[*types.MsgUpdateParams] {
	return func(_ context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgUpdateParams) {
		return nil, &types.MsgUpdateParams{
			Authority: testData.ModuleAccountAddress(reporter, "gov"),
			Params:    RandomParams(testData.Rand().Rand, sdk.DefaultBondDenom),
		}
	}
}

// regions the simulator registers providers in.
var regions = []string{"eu", "eu-de", "eu-de-fra1", "na-us-iad2", "as-jp", "oc-au-syd1", "sa-br"}

// MsgRegisterProviderFactory registers an account that is no provider yet.
func MsgRegisterProviderFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgRegisterProvider] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgRegisterProvider) {
		r := testData.Rand()
		operator := testData.AnyAccount(reporter, notProvider(ctx, k))
		if reporter.IsSkipped() {
			return nil, nil
		}
		msg := &types.MsgRegisterProvider{
			Operator:      operator.AddressBech32,
			Moniker:       "sim-" + r.StringN(8),
			Region:        regions[r.Intn(len(regions))],
			Endpoint:      fmt.Sprintf("https://%s.example.com:8443", r.StringN(6)),
			TlsCertSha256: RandomHex(r, 32),
		}
		params, err := k.Params.Get(ctx)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		if params.MaxAgents > 0 && r.Intn(2) == 0 {
			agent := testData.AnyAccount(reporter, simsx.ExcludeAccounts(operator))
			if !reporter.IsSkipped() {
				msg.Agents = []string{agent.AddressBech32}
			}
		}
		return []simsx.SimAccount{operator}, msg
	}
}

// MsgUpdateProviderFactory moves a provider to another region and endpoint.
func MsgUpdateProviderFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgUpdateProvider] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgUpdateProvider) {
		r := testData.Rand()
		operator := anyProvider(testData, reporter, liveProvider(ctx, k))
		if reporter.IsSkipped() {
			return nil, nil
		}
		p, err := k.Provider(ctx, operator.Address)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		return []simsx.SimAccount{operator}, &types.MsgUpdateProvider{
			Operator:      operator.AddressBech32,
			Moniker:       p.Moniker,
			Region:        regions[r.Intn(len(regions))],
			Endpoint:      fmt.Sprintf("https://%s.example.net", r.StringN(6)),
			TlsCertSha256: RandomHex(r, 32),
		}
	}
}

// MsgRegisterGPUsFactory binds 1–4 new GPUs to a provider, within its limit.
func MsgRegisterGPUsFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgRegisterGPUs] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgRegisterGPUs) {
		r := testData.Rand()
		operator := anyProvider(testData, reporter, liveProvider(ctx, k))
		if reporter.IsSkipped() {
			return nil, nil
		}
		p, err := k.Provider(ctx, operator.Address)
		params, err2 := k.Params.Get(ctx)
		if err != nil || err2 != nil {
			reporter.Skip("no provider or params")
			return nil, nil
		}
		room := min(params.MaxGpusPerProvider-p.GpuCount, params.MaxGpusPerMsg, 4)
		if room == 0 {
			reporter.Skip("provider has max_gpus_per_provider GPUs")
			return nil, nil
		}
		n := r.Intn(int(room)) + 1
		gpus := make([]types.GPUInfo, n)
		for i := range gpus {
			gpus[i] = types.GPUInfo{
				Uuid:          randomUUID(r),
				Model:         "NVIDIA H100 80GB HBM3",
				MemoryMib:     81559,
				PciBusId:      fmt.Sprintf("00000000:%02X:00.0", r.Intn(256)),
				DriverVersion: "550.54.15",
				VbiosVersion:  "96.00.89.00.01",
				Simulated:     true,
			}
		}
		return []simsx.SimAccount{operator}, &types.MsgRegisterGPUs{Signer: operator.AddressBech32, Provider: operator.AddressBech32, Gpus: gpus}
	}
}

// MsgDeregisterGPUFactory unbinds one of a provider's uncommitted GPUs (a
// jailed provider's GPUs stay bound).
func MsgDeregisterGPUFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgDeregisterGPU] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgDeregisterGPU) {
		operator := anyProvider(testData, reporter, freeProvider(ctx, k))
		if reporter.IsSkipped() {
			return nil, nil
		}
		gpus, err := k.GPUs(ctx, operator.Address)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		for _, g := range gpus {
			if !g.Committed {
				return []simsx.SimAccount{operator}, &types.MsgDeregisterGPU{Signer: operator.AddressBech32, Provider: operator.AddressBech32, Uuid: g.Uuid}
			}
		}
		reporter.Skip("no free GPU")
		return nil, nil
	}
}

// MsgBondFactory bonds part of a provider's stake-denom balance; taking it
// through LiquidBalance reserves it, so the fees drawn later cannot spend it.
func MsgBondFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgBond] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgBond) {
		params, err := k.Params.Get(ctx)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		denom := params.StakeDenom()
		operator := anyProvider(testData, reporter, liveProvider(ctx, k), simsx.WithDenomBalance(denom))
		if reporter.IsSkipped() {
			return nil, nil
		}
		amount := operator.LiquidBalance().RandSubsetCoin(reporter, denom)
		if reporter.IsSkipped() {
			return nil, nil
		}
		return []simsx.SimAccount{operator}, &types.MsgBond{Operator: operator.AddressBech32, Amount: amount}
	}
}

// MsgUnbondFactory unbonds part of the stake its committed GPUs do not need.
func MsgUnbondFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgUnbond] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgUnbond) {
		params, err := k.Params.Get(ctx)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		operator := anyProvider(testData, reporter, simsx.SimAccountFilterFn(func(a simsx.SimAccount) bool {
			p, err := k.Provider(ctx, a.Address)
			return err == nil && p.Stake.Amount.GT(params.RequiredStake(p.CommittedGpus))
		}))
		if reporter.IsSkipped() {
			return nil, nil
		}
		p, err := k.Provider(ctx, operator.Address)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		entries, err := k.UnbondingEntries(ctx, operator.Address)
		if err != nil || uint32(len(entries)) >= params.MaxUnbondingEntries {
			reporter.Skip("provider has max_unbonding_entries")
			return nil, nil
		}
		free := p.Stake.Amount.Sub(params.RequiredStake(p.CommittedGpus))
		amount, err := testData.Rand().PositiveSDKIntn(free)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		return []simsx.SimAccount{operator}, &types.MsgUnbond{Operator: operator.AddressBech32, Amount: sdk.NewCoin(p.Stake.Denom, amount)}
	}
}

// anyProvider picks a random account passing filters, trying every account
// if needed: providers are few among the simulator's accounts.
func anyProvider(testData *simsx.ChainDataSource, reporter simsx.SimulationReporter, filters ...simsx.SimAccountFilter) simsx.SimAccount {
	return testData.AnyAccountN(testData.AccountsCount(), reporter, filters...)
}

func notProvider(ctx context.Context, k keeper.Keeper) simsx.SimAccountFilter {
	return simsx.SimAccountFilterFn(func(a simsx.SimAccount) bool {
		has, err := k.Providers.Has(ctx, a.Address)
		return err == nil && !has
	})
}

// liveProvider accepts providers that are not tombstoned.
func liveProvider(ctx context.Context, k keeper.Keeper) simsx.SimAccountFilter {
	return simsx.SimAccountFilterFn(func(a simsx.SimAccount) bool {
		p, err := k.Provider(ctx, a.Address)
		return err == nil && p.Status != types.PROVIDER_STATUS_TOMBSTONED
	})
}

// freeProvider keeps providers that may move their GPUs: neither
// tombstoned nor jailed.
func freeProvider(ctx context.Context, k keeper.Keeper) simsx.SimAccountFilter {
	return simsx.SimAccountFilterFn(func(a simsx.SimAccount) bool {
		p, err := k.Provider(ctx, a.Address)
		return err == nil && p.Status != types.PROVIDER_STATUS_TOMBSTONED && p.Status != types.PROVIDER_STATUS_JAILED
	})
}

// RandomHex returns 2n random lowercase hex digits (n random bytes); the
// other modules' simulations use it too.
func RandomHex(r *simsx.XRand, n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 2*n)
	for i := range b {
		b[i] = digits[r.Intn(16)]
	}
	return string(b)
}

func randomUUID(r *simsx.XRand) string {
	h := RandomHex(r, 16)
	return "GPU-" + h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
