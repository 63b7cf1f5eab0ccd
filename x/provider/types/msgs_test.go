package types_test

import (
	"testing"

	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/msgtest"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

const testCert = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func gpuInfo(uuid string) types.GPUInfo {
	return types.GPUInfo{Uuid: uuid, Model: "NVIDIA H100 80GB HBM3", MemoryMib: 81559, PciBusId: "00000000:3B:00.0",
		DriverVersion: "550.54.15", VbiosVersion: "96.00.89.00.01"}
}

const uuid1, uuid2 = "GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ab", "GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ac"

// TestValidateBasic: every stateless rule the msg server checks refuses its
// field before any state is read, with the module's error and the text a
// client sees; a well-formed message of every type passes.
func TestValidateBasic(t *testing.T) {
	op, agent := addr(1), addr(2)
	register := func(edit func(*types.MsgRegisterProvider)) *types.MsgRegisterProvider {
		m := &types.MsgRegisterProvider{Operator: op, Moniker: "Fra1 rack", Region: "eu-de-fra1",
			Endpoint: "https://gpu.example.com:8443", TlsCertSha256: testCert, Agents: []string{agent}}
		edit(m)
		return m
	}
	gpus := func(edit func(*types.MsgRegisterGPUs)) *types.MsgRegisterGPUs {
		m := &types.MsgRegisterGPUs{Signer: agent, Provider: op, Gpus: []types.GPUInfo{gpuInfo(uuid1), gpuInfo(uuid2)}}
		edit(m)
		return m
	}
	badParams := types.DefaultParams()
	badParams.MaxGpusPerMsg = 0
	ugpu := func(n int64) sdk.Coin { return sdk.NewInt64Coin(sdk.DefaultBondDenom, n) }
	badBech32 := `decoding bech32 failed: invalid bech32 string length 3`

	msgtest.RunValidateBasic(t, msgtest.Cases{
		{"register", register(func(*types.MsgRegisterProvider) {}), nil, ""},
		{"register: operator", register(func(m *types.MsgRegisterProvider) { m.Operator = "bad" }),
			types.ErrInvalidAddress, `operator "bad": ` + badBech32 + `: invalid address`},
		{"register: moniker", register(func(m *types.MsgRegisterProvider) { m.Moniker = "" }),
			types.ErrInvalidMoniker, "must not be empty: invalid moniker"},
		{"register: region", register(func(m *types.MsgRegisterProvider) { m.Region = "eu-west" }),
			types.ErrInvalidRegion, `"eu-west": "west" is not an ISO 3166-1 alpha-2 country code (lower-case): invalid region`},
		{"register: endpoint", register(func(m *types.MsgRegisterProvider) { m.Endpoint = "http://gpu.example.com" }),
			types.ErrInvalidEndpoint, `"http://gpu.example.com": plain http only on loopback; use https: invalid endpoint`},
		{"register: certificate pin", register(func(m *types.MsgRegisterProvider) { m.TlsCertSha256 = "" }),
			types.ErrInvalidCertHash, "an https endpoint needs its certificate's SHA-256: invalid tls_cert_sha256"},
		{"register: agent not bech32", register(func(m *types.MsgRegisterProvider) { m.Agents = []string{"0xabc"} }),
			types.ErrInvalidAgents, `agent "0xabc": decoding bech32 failed: invalid bech32 string length 5: invalid agents`},
		{"register: operator as agent", register(func(m *types.MsgRegisterProvider) { m.Agents = []string{op} }),
			types.ErrInvalidAgents, "the operator cannot be its own agent: invalid agents"},
		{"register: agent twice", register(func(m *types.MsgRegisterProvider) { m.Agents = []string{agent, agent} }),
			types.ErrInvalidAgents, "agent " + agent + " listed twice: invalid agents"},
		{"update", &types.MsgUpdateProvider{Operator: op, Moniker: "m", Region: "eu", Endpoint: "http://127.0.0.1:8443"}, nil, ""},
		{"update: region", &types.MsgUpdateProvider{Operator: op, Moniker: "m", Region: "europe", Endpoint: "http://127.0.0.1:8443"},
			types.ErrInvalidRegion, `"europe": continent "europe" is not one of af, an, as, eu, na, oc, sa: invalid region`},

		{"register gpus", gpus(func(*types.MsgRegisterGPUs) {}), nil, ""},
		{"register gpus: signer", gpus(func(m *types.MsgRegisterGPUs) { m.Signer = "bad" }),
			types.ErrInvalidAddress, `signer "bad": ` + badBech32 + `: invalid address`},
		{"register gpus: provider", gpus(func(m *types.MsgRegisterGPUs) { m.Provider = "" }),
			types.ErrInvalidAddress, `provider "": empty address string is not allowed: invalid address`},
		{"register gpus: none", gpus(func(m *types.MsgRegisterGPUs) { m.Gpus = nil }),
			types.ErrTooManyGPUs, "a message carries at least 1 GPU, got 0: too many gpus"},
		{"register gpus: uuid", gpus(func(m *types.MsgRegisterGPUs) { m.Gpus[1].Uuid = "bad" }),
			types.ErrInvalidGPUUUID, `"bad": want GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx: invalid gpu uuid`},
		{"register gpus: memory", gpus(func(m *types.MsgRegisterGPUs) { m.Gpus[0].MemoryMib = 0 }),
			types.ErrInvalidGPU, uuid1 + ": memory_mib must be positive: invalid gpu"},
		{"register gpus: twice", gpus(func(m *types.MsgRegisterGPUs) { m.Gpus[1] = m.Gpus[0] }),
			types.ErrDuplicateGPU, uuid1 + " listed twice: duplicate gpu in message"},

		{"deregister gpu", &types.MsgDeregisterGPU{Signer: agent, Provider: op, Uuid: uuid1}, nil, ""},
		{"deregister gpu: uuid", &types.MsgDeregisterGPU{Signer: agent, Provider: op, Uuid: "GPU-5F1C6C2A-9B8E-4C3D-A1F0-0123456789AB"},
			types.ErrInvalidGPUUUID, `"GPU-5F1C6C2A-9B8E-4C3D-A1F0-0123456789AB": digits must be lower-case hex: invalid gpu uuid`},
		{"deregister gpu: provider", &types.MsgDeregisterGPU{Signer: agent, Provider: "bad", Uuid: uuid1},
			types.ErrInvalidAddress, `provider "bad": ` + badBech32 + `: invalid address`},

		{"bond", &types.MsgBond{Operator: op, Amount: ugpu(100)}, nil, ""},
		{"bond: operator", &types.MsgBond{Operator: "bad", Amount: ugpu(100)},
			types.ErrInvalidAddress, `operator "bad": ` + badBech32 + `: invalid address`},
		{"bond: no denom", &types.MsgBond{Operator: op, Amount: sdk.Coin{Amount: math.NewInt(100)}},
			types.ErrInvalidStake, "amount 100 has no denom: write it like 100" + sdk.DefaultBondDenom + ": invalid stake amount"},
		{"bond: no amount or denom", &types.MsgBond{Operator: op},
			types.ErrInvalidStake, "amount 0 has no denom: write it like 0" + sdk.DefaultBondDenom + ": invalid stake amount"},
		{"bond: zero", &types.MsgBond{Operator: op, Amount: ugpu(0)},
			types.ErrInvalidStake, "0" + sdk.DefaultBondDenom + ": must be positive: invalid stake amount"},
		{"bond: negative", &types.MsgBond{Operator: op, Amount: sdk.Coin{Denom: sdk.DefaultBondDenom, Amount: math.NewInt(-5)}},
			types.ErrInvalidStake, "-5" + sdk.DefaultBondDenom + ": must be positive: invalid stake amount"},
		{"bond: denom syntax", &types.MsgBond{Operator: op, Amount: sdk.Coin{Denom: "x", Amount: math.NewInt(5)}},
			types.ErrInvalidStake, "5x: must be positive: invalid stake amount"},
		{"unbond", &types.MsgUnbond{Operator: op, Amount: ugpu(100)}, nil, ""},
		{"unbond: no denom", &types.MsgUnbond{Operator: op, Amount: sdk.Coin{Amount: math.NewInt(100)}},
			types.ErrInvalidStake, "amount 100 has no denom: write it like 100" + sdk.DefaultBondDenom + ": invalid stake amount"},
		{"unbond: zero", &types.MsgUnbond{Operator: op, Amount: ugpu(0)},
			types.ErrInvalidStake, "0" + sdk.DefaultBondDenom + ": must be positive: invalid stake amount"},

		{"unjail", &types.MsgUnjail{Operator: op}, nil, ""},
		{"unjail: operator", &types.MsgUnjail{Operator: "bad"},
			types.ErrInvalidAddress, `operator "bad": ` + badBech32 + `: invalid address`},

		{"update params", &types.MsgUpdateParams{Authority: op, Params: types.DefaultParams()}, nil, ""},
		{"update params: authority", &types.MsgUpdateParams{Authority: "bad", Params: types.DefaultParams()},
			types.ErrInvalidAuthority, `authority "bad": ` + badBech32 + `: signer is not the module authority`},
		{"update params: params", &types.MsgUpdateParams{Authority: op, Params: badParams},
			types.ErrInvalidParams, "max_gpus_per_msg must be greater than 0: invalid params"},
	})
}
