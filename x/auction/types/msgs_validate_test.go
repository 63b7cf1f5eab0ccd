package types_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/msgtest"
)

// TestValidateBasic: every stateless rule the msg server checks refuses its
// field before any state is read, with the module's error and the text a
// client sees; a well-formed message of every type passes.
func TestValidateBasic(t *testing.T) {
	renter := sdk.AccAddress(bytes.Repeat([]byte{1}, 20)).String()
	provider := sdk.AccAddress(bytes.Repeat([]byte{2}, 20)).String()
	long := sdk.AccAddress(bytes.Repeat([]byte{3}, 32)).String() // a module-style account, no wallet
	const contract = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	sig, err := crypto.Sign(bytes.Repeat([]byte{9}, 32), key)
	require.NoError(t, err)
	sig[64] += 27 // as wallets write v

	post := func(edit func(*types.JobSpec)) *types.MsgPostJob {
		s := validSpec()
		edit(&s)
		return &types.MsgPostJob{Renter: renter, Spec: s}
	}
	signedJob := func(edit func(*types.MsgSubmitSignedJob)) *types.MsgSubmitSignedJob {
		m := &types.MsgSubmitSignedJob{Submitter: provider, Signature: sig, RelayerFee: math.NewInt(5), Bid: types.JobBid{
			Renter: renter, Spec: validSpec(), CosmosChainId: "idlegpu-1", Nonce: 1, Deadline: 100,
			MaxRelayerFee: math.NewInt(10), EvmChainId: 1, VerifyingContract: contract,
		}}
		edit(m)
		return m
	}
	fee := sdk.NewInt64Coin("uusdc", 10)
	signedCancel := func(edit func(*types.MsgSubmitSignedCancel)) *types.MsgSubmitSignedCancel {
		m := &types.MsgSubmitSignedCancel{Submitter: provider, Signature: sig, RelayerFee: math.NewInt(5), Auth: types.CancelJobAuth{
			Renter: renter, JobId: 1, CosmosChainId: "idlegpu-1", Nonce: 1, Deadline: 100, MaxRelayerFee: fee, EvmChainId: 1, VerifyingContract: contract,
		}}
		edit(m)
		return m
	}
	signedClose := func(edit func(*types.MsgSubmitSignedClose)) *types.MsgSubmitSignedClose {
		m := &types.MsgSubmitSignedClose{Submitter: provider, Signature: sig, RelayerFee: math.ZeroInt(), Auth: types.CloseLeaseAuth{
			Renter: renter, LeaseId: 1, Reason: "done", CosmosChainId: "idlegpu-1", Nonce: 1, Deadline: 100, MaxRelayerFee: fee, EvmChainId: 1, VerifyingContract: contract,
		}}
		edit(m)
		return m
	}
	signedWithdraw := func(edit func(*types.MsgSubmitSignedWithdraw)) *types.MsgSubmitSignedWithdraw {
		m := &types.MsgSubmitSignedWithdraw{Submitter: provider, Signature: sig, RelayerFee: math.NewInt(5), Auth: types.WithdrawAuth{
			Renter: renter, Amount: sdk.NewInt64Coin("uusdc", 1_000_000), CosmosChainId: "idlegpu-1", Nonce: 1, Deadline: 100,
			MaxRelayerFee: fee, EvmChainId: 1, VerifyingContract: contract,
		}}
		edit(m)
		return m
	}
	price := func(denom string, n int64) sdk.Coin { return sdk.Coin{Denom: denom, Amount: math.NewInt(n)} }
	badParams := types.DefaultParams()
	badParams.MaxGpusPerJob = 0
	badBech32 := `decoding bech32 failed: invalid bech32 string length 3`
	tooLong := strings.Repeat("r", types.MaxReasonLength+1)

	msgtest.RunValidateBasic(t, msgtest.Cases{
		{"post job", post(func(*types.JobSpec) {}), nil, ""},
		{"post job: a denom no market takes is the keeper's", post(func(s *types.JobSpec) { s.MaxPrice.Denom = "uatom" }), nil, ""},
		{"post job: renter", &types.MsgPostJob{Renter: "bad", Spec: validSpec()},
			types.ErrInvalidAddress, `renter "bad": ` + badBech32 + `: invalid address`},
		{"post job: image", post(func(s *types.JobSpec) { s.Image = "" }),
			types.ErrInvalidImage, "image must be 1..256 printable bytes: invalid image"},
		{"post job: digest", post(func(s *types.JobSpec) { s.ImageDigest = "sha256:abc" }),
			types.ErrInvalidImage, `image_digest "sha256:abc": want sha256: and 64 lowercase hex digits: invalid image`},
		{"post job: manifest hash", post(func(s *types.JobSpec) { s.ManifestHash = "ab" }),
			types.ErrInvalidManifestHash, `"ab": want the manifest's sha256 as 64 lowercase hex digits: invalid manifest hash`},
		{"post job: workload", post(func(s *types.JobSpec) { s.Workload = 3 }),
			types.ErrInvalidWorkload, "3: invalid workload"},
		{"post job: no gpus", post(func(s *types.JobSpec) { s.GpuCount = 0 }),
			types.ErrInvalidGPUCount, "0 GPUs: want 1..64: invalid gpu count"},
		{"post job: more gpus than any lease", post(func(s *types.JobSpec) { s.GpuCount = 65 }),
			types.ErrInvalidGPUCount, "65 GPUs: want 1..64: invalid gpu count"},
		{"post job: model", post(func(s *types.JobSpec) { s.Models = []string{"NVIDIA H100\n"} }),
			types.ErrInvalidModels, `model "NVIDIA H100\n": must be 1..96 printable bytes, listed once: invalid models`},
		{"post job: model twice", post(func(s *types.JobSpec) { s.Models = []string{"A100", "A100"} }),
			types.ErrInvalidModels, `model "A100": must be 1..96 printable bytes, listed once: invalid models`},
		{"post job: region", post(func(s *types.JobSpec) { s.Regions = []string{"eu-west"} }),
			types.ErrInvalidRegions, `region "eu-west": want continent[-country[-site]], listed once: invalid regions`},
		{"post job: tier", post(func(s *types.JobSpec) { s.Tier = types.TIER_UNSPECIFIED }),
			types.ErrInvalidTier, "TIER_UNSPECIFIED: invalid tier"},
		{"post job: preemptible", post(func(s *types.JobSpec) { s.Preemptible = true }),
			types.ErrInvalidTier, "preemptible=true with TIER_SILVER: BRONZE jobs, and only they, are preemptible: invalid tier"},
		{"post job: duration", post(func(s *types.JobSpec) { s.DurationSeconds = 0 }),
			types.ErrInvalidDuration, "0 s: want 1..3153600000: invalid duration"},
		{"post job: hex price read as zero", post(func(s *types.JobSpec) { s.MaxPrice = price("x10uusdc", 0) }),
			types.ErrInvalidPrice, "0x10uusdc: must be positive: invalid price"},
		{"post job: price denom", post(func(s *types.JobSpec) { s.MaxPrice = price("u", 5) }),
			types.ErrInvalidPrice, "5u: invalid denom: u: invalid price"},
		{"post job: resources", post(func(s *types.JobSpec) { s.MinCpuCoresPerGpu = 1025 }),
			types.ErrInvalidResources, "min per GPU 1025 cores, 0 MiB, 0 GiB: at most 1024, 67108864, 1048576 (no offer could give more): invalid resources per gpu"},
		{"post job: egress at the bound", post(func(s *types.JobSpec) { s.MinEgressMbpsPerGpu = 100_000 }), nil, ""},
		{"post job: egress over the bound", post(func(s *types.JobSpec) { s.MinEgressMbpsPerGpu = 100_001 }),
			types.ErrInvalidResources, "min_egress_mbps_per_gpu 100001: at most 100000 (no offer could give more): invalid resources per gpu"},
		{"post job: ingress on the highest port", post(func(s *types.JobSpec) { s.IngressPort = 65535 }), nil, ""},
		{"post job: ingress port past TCP's", post(func(s *types.JobSpec) { s.IngressPort = 65536 }),
			types.ErrInvalidIngressPort, "ingress_port 65536: a TCP port is at most 65535: invalid ingress port"},
		{"post job: bid window", post(func(s *types.JobSpec) { s.BidWindowBlocks = types.MaxBidWindowBlocks + 1 }),
			types.ErrInvalidBidWindow, "100001 blocks, at most 100000: invalid bid window"},

		{"cancel job", &types.MsgCancelJob{Renter: renter, JobId: 1}, nil, ""},
		{"cancel job: renter", &types.MsgCancelJob{Renter: "", JobId: 1},
			types.ErrInvalidAddress, `renter "": empty address string is not allowed: invalid address`},

		{"place bid", &types.MsgPlaceBid{Signer: provider, Provider: provider, JobId: 1, OfferId: 1, Price: price("uusdc", 5), GpuCount: 1}, nil, ""},
		{"place bid: provider", &types.MsgPlaceBid{Signer: provider, Provider: "bad", JobId: 1, OfferId: 1, Price: price("uusdc", 5), GpuCount: 1},
			types.ErrInvalidAddress, `provider "bad": ` + badBech32 + `: invalid address`},
		{"place bid: price", &types.MsgPlaceBid{Signer: provider, Provider: provider, JobId: 1, OfferId: 1, Price: price("uusdc", 0), GpuCount: 1},
			types.ErrInvalidPrice, "0uusdc: must be positive: invalid price"},
		{"place bid: no gpus", &types.MsgPlaceBid{Signer: provider, Provider: provider, JobId: 1, OfferId: 1, Price: price("uusdc", 5)},
			types.ErrInvalidGPUCount, "a bid of 0 GPUs: invalid gpu count"},
		{"withdraw bid", &types.MsgWithdrawBid{Signer: provider, Provider: provider, JobId: 1}, nil, ""},
		{"withdraw bid: signer", &types.MsgWithdrawBid{Signer: "bad", Provider: provider, JobId: 1},
			types.ErrInvalidAddress, `signer "bad": ` + badBech32 + `: invalid address`},

		{"start lease", &types.MsgStartLease{Signer: provider, LeaseId: 1}, nil, ""},
		{"start lease: signer", &types.MsgStartLease{Signer: "bad", LeaseId: 1},
			types.ErrInvalidAddress, `signer "bad": ` + badBech32 + `: invalid address`},
		{"close lease", &types.MsgCloseLease{Signer: renter, LeaseId: 1, Reason: "done early"}, nil, ""},
		{"close lease: reason", &types.MsgCloseLease{Signer: renter, LeaseId: 1, Reason: tooLong},
			types.ErrInvalidReason, "at most 256 printable bytes: invalid reason"},
		{"preempt lease", &types.MsgPreemptLease{Signer: provider, LeaseId: 1}, nil, ""},
		{"preempt lease: reason", &types.MsgPreemptLease{Signer: provider, LeaseId: 1, Reason: "tab\there"},
			types.ErrInvalidReason, "at most 256 printable bytes: invalid reason"},

		{"update params", &types.MsgUpdateParams{Authority: renter, Params: types.DefaultParams()}, nil, ""},
		{"update params: authority", &types.MsgUpdateParams{Authority: "bad", Params: types.DefaultParams()},
			types.ErrInvalidAuthority, `authority "bad": ` + badBech32 + `: signer is not the module authority`},
		{"update params: params", &types.MsgUpdateParams{Authority: renter, Params: badParams},
			types.ErrInvalidParams, "max_gpus_per_job must be greater than 0: invalid params"},

		{"signed job", signedJob(func(*types.MsgSubmitSignedJob) {}), nil, ""},
		{"signed job: renter", signedJob(func(m *types.MsgSubmitSignedJob) { m.Bid.Renter = "bad" }),
			types.ErrInvalidAddress, `renter "bad": ` + badBech32 + `: invalid address`},
		{"signed job: renter is no wallet", signedJob(func(m *types.MsgSubmitSignedJob) { m.Bid.Renter = long }),
			types.ErrInvalidSignedMsg, "renter has 32 address bytes; a wallet account has 20: invalid signed message"},
		{"signed job: spec", signedJob(func(m *types.MsgSubmitSignedJob) { m.Bid.Spec.Regions = []string{"mars"} }),
			types.ErrInvalidRegions, `region "mars": want continent[-country[-site]], listed once: invalid regions`},
		{"signed job: no max fee", signedJob(func(m *types.MsgSubmitSignedJob) { m.Bid.MaxRelayerFee = math.Int{} }),
			types.ErrInvalidSignedMsg, "max relayer fee <nil> is not a uint256: invalid signed message"},
		{"signed job: submitter", signedJob(func(m *types.MsgSubmitSignedJob) { m.Submitter = "bad" }),
			types.ErrInvalidAddress, `submitter "bad": ` + badBech32 + `: invalid address`},
		{"signed job: contract", signedJob(func(m *types.MsgSubmitSignedJob) { m.Bid.VerifyingContract = "0x12" }),
			types.ErrInvalidSignedMsg, `"0x12" is not a 0x-prefixed 20-byte address: invalid signed message`},
		{"signed job: signature length", signedJob(func(m *types.MsgSubmitSignedJob) { m.Signature = sig[:64] }),
			types.ErrBadSignature, "64 bytes, want 65: bad wallet signature"},
		{"signed job: signature v", signedJob(func(m *types.MsgSubmitSignedJob) { m.Signature = append(append([]byte{}, sig[:64]...), 29) }),
			types.ErrBadSignature, "v is 29, want 27, 28, 0 or 1: bad wallet signature"},
		{"signed job: negative fee", signedJob(func(m *types.MsgSubmitSignedJob) { m.RelayerFee = math.NewInt(-1) }),
			types.ErrInvalidSignedMsg, "relayer fee must not be negative: invalid signed message"},
		{"signed job: fee above the signed maximum", signedJob(func(m *types.MsgSubmitSignedJob) { m.RelayerFee = math.NewInt(11) }),
			types.ErrRelayerFeeTooHigh, "asked 11, the renter allowed 10: relayer fee above the signed maximum"},

		{"signed cancel", signedCancel(func(*types.MsgSubmitSignedCancel) {}), nil, ""},
		{"signed cancel: max fee", signedCancel(func(m *types.MsgSubmitSignedCancel) { m.Auth.MaxRelayerFee = price("uusdc", -1) }),
			types.ErrInvalidSignedMsg, "max relayer fee -1 is not a uint256: invalid signed message"},
		{"signed cancel: submitter", signedCancel(func(m *types.MsgSubmitSignedCancel) { m.Submitter = "" }),
			types.ErrInvalidAddress, `submitter "": empty address string is not allowed: invalid address`},

		{"signed close", signedClose(func(*types.MsgSubmitSignedClose) {}), nil, ""},
		{"signed close: reason", signedClose(func(m *types.MsgSubmitSignedClose) { m.Auth.Reason = tooLong }),
			types.ErrInvalidReason, "at most 256 printable bytes: invalid reason"},
		{"signed close: renter", signedClose(func(m *types.MsgSubmitSignedClose) { m.Auth.Renter = long }),
			types.ErrInvalidSignedMsg, "renter has 32 address bytes; a wallet account has 20: invalid signed message"},

		{"signed withdraw", signedWithdraw(func(*types.MsgSubmitSignedWithdraw) {}), nil, ""},
		{"signed withdraw: another denom is x/bridge's to refuse", signedWithdraw(func(m *types.MsgSubmitSignedWithdraw) { m.Auth.Amount.Denom = "ugpu" }), nil, ""},
		{"signed withdraw: renter", signedWithdraw(func(m *types.MsgSubmitSignedWithdraw) { m.Auth.Renter = "bad" }),
			types.ErrInvalidAddress, `renter "bad": ` + badBech32 + `: invalid address`},
		{"signed withdraw: not a wallet account", signedWithdraw(func(m *types.MsgSubmitSignedWithdraw) { m.Auth.Renter = long }),
			types.ErrInvalidSignedMsg, "renter has 32 address bytes; a wallet account has 20: invalid signed message"},
		{"signed withdraw: zero amount", signedWithdraw(func(m *types.MsgSubmitSignedWithdraw) { m.Auth.Amount = price("uusdc", 0) }),
			types.ErrInvalidSignedMsg, "amount 0uusdc: want a positive coin: invalid signed message"},
		{"signed withdraw: negative amount", signedWithdraw(func(m *types.MsgSubmitSignedWithdraw) { m.Auth.Amount = price("uusdc", -1) }),
			types.ErrInvalidSignedMsg, "amount -1 is not a uint256: invalid signed message"},
		{"signed withdraw: no amount", signedWithdraw(func(m *types.MsgSubmitSignedWithdraw) { m.Auth.Amount = sdk.Coin{} }),
			types.ErrInvalidSignedMsg, "amount <nil> is not a uint256: invalid signed message"},
		{"signed withdraw: bad denom", signedWithdraw(func(m *types.MsgSubmitSignedWithdraw) { m.Auth.Amount = price("U", 5) }),
			types.ErrInvalidSignedMsg, "amount 5U: want a positive coin: invalid signed message"},
		{"signed withdraw: max fee", signedWithdraw(func(m *types.MsgSubmitSignedWithdraw) { m.Auth.MaxRelayerFee = price("uusdc", -1) }),
			types.ErrInvalidSignedMsg, "max relayer fee -1 is not a uint256: invalid signed message"},
		{"signed withdraw: fee above the signed maximum", signedWithdraw(func(m *types.MsgSubmitSignedWithdraw) { m.RelayerFee = math.NewInt(11) }),
			types.ErrRelayerFeeTooHigh, "asked 11, the renter allowed 10: relayer fee above the signed maximum"},
		{"signed withdraw: contract", signedWithdraw(func(m *types.MsgSubmitSignedWithdraw) { m.Auth.VerifyingContract = "0x12" }),
			types.ErrInvalidSignedMsg, `"0x12" is not a 0x-prefixed 20-byte address: invalid signed message`},
		{"signed withdraw: signature length", signedWithdraw(func(m *types.MsgSubmitSignedWithdraw) { m.Signature = sig[:64] }),
			types.ErrBadSignature, "64 bytes, want 65: bad wallet signature"},
		{"signed withdraw: submitter", signedWithdraw(func(m *types.MsgSubmitSignedWithdraw) { m.Submitter = "" }),
			types.ErrInvalidAddress, `submitter "": empty address string is not allowed: invalid address`},
	})
}

// TestSpecValidateBasicIsValidateWithoutParams: the params only narrow the
// GPU and duration bounds; everything else is one rule.
func TestSpecValidateBasicIsValidateWithoutParams(t *testing.T) {
	s := validSpec()
	s.GpuCount, s.DurationSeconds = 9, 7200
	p := types.DefaultParams()
	p.MaxGpusPerJob, p.MaxJobDurationSeconds = 8, 3600
	require.NoError(t, s.ValidateBasic())
	require.EqualError(t, s.Validate(p), "9 GPUs: want 1..8: invalid gpu count")
	s.GpuCount = 8
	require.EqualError(t, s.Validate(p), "7200 s: want 1..3600: invalid duration")
}
