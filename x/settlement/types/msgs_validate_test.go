package types_test

import (
	"bytes"
	"testing"
	"time"

	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/msgtest"
	"github.com/idlegpu/idlegpu/x/settlement/audit"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

var operator = sdk.AccAddress(bytes.Repeat([]byte{1}, 20)).String()

// validProof is a proof that passes ExecutionProof.ValidateBasic.
func validProof() types.ExecutionProof {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return types.ExecutionProof{
		LeaseId: 1, Epoch: 0, WindowStart: start, WindowEnd: start.Add(10 * time.Minute),
		ChallengeHeight: 5, ChallengeHash: make([]byte, types.HashSize), SamplesRoot: make([]byte, types.HashSize),
		ImageDigest: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		Gpus:        []types.GPUSummary{{Uuid: "GPU-1", Samples: 10, UtilAvgBps: 9000, UtilMinBps: 8000}},
	}
}

// TestValidateBasic: every stateless rule the msg server checks refuses its
// field before any state is read, with the module's error and the text a
// client sees; a well-formed message of every type passes.
func TestValidateBasic(t *testing.T) {
	const uuid = "GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ab"
	fee := sdk.NewInt64Coin("ugpu", 5)
	root := make([]byte, types.HashSize)
	opening := types.AuditOpening{State: make([]byte, audit.StateBytes)}
	proofs := func(edit func(*types.ExecutionProof)) *types.MsgSubmitProofs {
		p, q := validProof(), validProof()
		q.Epoch = 1
		edit(&q)
		return &types.MsgSubmitProofs{Signer: operator, Provider: operator, Proofs: []types.ExecutionProof{p, q}}
	}
	sample := types.Sample{GpuUuid: uuid, TimestampMs: 1, UtilBps: 9000}
	badParams := types.DefaultParams()
	badParams.EpochSeconds = 0
	badBech32 := `decoding bech32 failed: invalid bech32 string length 3`

	msgtest.RunValidateBasic(t, msgtest.Cases{
		{"request audit", &types.MsgRequestAudit{Requester: operator, GpuUuid: uuid, Fee: fee}, nil, ""},
		{"request a required audit", &types.MsgRequestAudit{Requester: operator, GpuUuid: uuid}, nil, ""},
		{"request audit: requester", &types.MsgRequestAudit{Requester: "bad", GpuUuid: uuid},
			types.ErrInvalidAudit, "requester: " + badBech32 + ": invalid audit"},
		{"request audit: gpu", &types.MsgRequestAudit{Requester: operator},
			types.ErrInvalidAudit, "gpu_uuid must be 1..128 bytes: invalid audit"},
		{"request audit: fee", &types.MsgRequestAudit{Requester: operator, GpuUuid: uuid, Fee: sdk.Coin{Denom: "ugpu", Amount: math.ZeroInt()}},
			types.ErrInvalidAudit, "fee 0ugpu must be a positive coin, or empty: invalid audit"},
		{"answer audit", &types.MsgAnswerAudit{Signer: operator, AuditId: 1, Root: root}, nil, ""},
		{"answer audit: signer", &types.MsgAnswerAudit{Signer: "bad", AuditId: 1, Root: root},
			types.ErrUnauthorized, "signer: " + badBech32 + ": signer is not the provider's operator or agent"},
		{"answer audit: root", &types.MsgAnswerAudit{Signer: operator, AuditId: 1, Root: root[:31]},
			types.ErrInvalidAudit, "root must be 32 bytes, got 31: invalid audit"},
		{"prove audit", &types.MsgProveAudit{Signer: operator, AuditId: 1, Openings: []types.AuditOpening{opening}}, nil, ""},
		{"prove audit: signer", &types.MsgProveAudit{Signer: "", AuditId: 1, Openings: []types.AuditOpening{opening}},
			types.ErrUnauthorized, "signer: empty address string is not allowed: signer is not the provider's operator or agent"},
		{"prove audit: no openings", &types.MsgProveAudit{Signer: operator, AuditId: 1},
			types.ErrInvalidAudit, "0 openings: need 1..64: invalid audit"},

		{"report fraud", &types.MsgReportFraud{Reporter: operator, LeaseId: 1, Sample: sample, Path: [][]byte{root}}, nil, ""},
		{"report fraud: reporter", &types.MsgReportFraud{Reporter: "bad", LeaseId: 1, Sample: sample},
			types.ErrUnauthorized, "reporter: " + badBech32 + ": signer is not the provider's operator or agent"},
		{"report fraud: sample", &types.MsgReportFraud{Reporter: operator, LeaseId: 1, Sample: types.Sample{GpuUuid: uuid, UtilBps: 10_001}},
			types.ErrInvalidSample, "utilisation 10001 bps above 10000: invalid sample"},
		{"report fraud: path hash", &types.MsgReportFraud{Reporter: operator, LeaseId: 1, Sample: sample, Path: [][]byte{root[:5]}},
			types.ErrInvalidMerkleProof, "path hash of the wrong size: invalid merkle proof"},
		{"report fraud: path length", &types.MsgReportFraud{Reporter: operator, LeaseId: 1, Sample: sample, Path: make([][]byte, types.MaxMerklePath+1)},
			types.ErrInvalidMerkleProof, "malformed hashes or path too long: invalid merkle proof"},

		{"submit proofs", proofs(func(*types.ExecutionProof) {}), nil, ""},
		{"submit proofs: provider", &types.MsgSubmitProofs{Signer: operator, Provider: "bad", Proofs: []types.ExecutionProof{validProof()}},
			types.ErrUnauthorized, "provider: " + badBech32 + ": signer is not the provider's operator or agent"},
		{"submit proofs: a proof's window", proofs(func(p *types.ExecutionProof) { p.WindowEnd = p.WindowStart }),
			types.ErrInvalidProof, "proof 1 (lease 1, epoch 1): window [2026-03-01 12:00:00 +0000 UTC, 2026-03-01 12:00:00 +0000 UTC] is empty: invalid execution proof"},
		{"submit proofs: a proof's gpu", proofs(func(p *types.ExecutionProof) { p.Gpus[0].Samples = 0 }),
			types.ErrTooFewSamples, "proof 1 (lease 1, epoch 1): gpu GPU-1 has no samples: " + types.ErrTooFewSamples.Error()},

		{"claim rewards", &types.MsgClaimRewards{Operator: operator, Denoms: []string{"uusdc"}}, nil, ""},
		{"claim rewards: operator", &types.MsgClaimRewards{Operator: "bad"},
			types.ErrUnauthorized, "operator: " + badBech32 + ": signer is not the provider's operator or agent"},
		{"claim rewards: denom", &types.MsgClaimRewards{Operator: operator, Denoms: []string{"uusdc", "1x"}},
			types.ErrNoRewards, `denom "1x": invalid denom: 1x: no rewards to claim`},

		{"update params", &types.MsgUpdateParams{Authority: operator, Params: types.DefaultParams()}, nil, ""},
		{"update params: authority", &types.MsgUpdateParams{Authority: "bad", Params: types.DefaultParams()},
			types.ErrInvalidAuthority, `authority "bad": ` + badBech32 + `: signer is not the module authority`},
		{"update params: params", &types.MsgUpdateParams{Authority: operator, Params: badParams},
			types.ErrInvalidParams, "epoch_seconds must be greater than 0: invalid params"},
	})
}
