package types

import (
	"github.com/idlegpu/idlegpu/x/internal/check"
	"strings"
	"time"

	errorsmod "cosmossdk.io/errors"

	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

const (
	// MaxProofGPUs bounds the GPUs one proof summarises (a lease's GPUs);
	// the market caps every lease at it (x/auction and x/offer params).
	MaxProofGPUs = check.MaxGPUsPerLease
	// MaxAgentVersionLength bounds agent_version.
	MaxAgentVersionLength = 64
)

// ValidateBasic checks the addresses, the proof count and each proof on its
// own before any state is read: baseapp and the CLI run it, so an empty
// message is refused as empty, with its own error, and not by the keeper's
// 1..MaxProofsPerMsg bound as "too many".
func (m *MsgSubmitProofs) ValidateBasic() error {
	if err := validSigner("signer", m.Signer); err != nil {
		return err
	}
	if err := validSigner("provider", m.Provider); err != nil {
		return err
	}
	switch n := len(m.Proofs); {
	case n == 0:
		return ErrNoProofs
	case n > MaxProofsPerMsg:
		return errorsmod.Wrapf(ErrTooManyProofs, "%d proofs, at most %d", n, MaxProofsPerMsg)
	}
	for i, p := range m.Proofs {
		if err := p.ValidateBasic(); err != nil {
			// As the msg server names a proof that fails.
			return errorsmod.Wrapf(err, "proof %d (lease %d, epoch %d)", i, p.LeaseId, p.Epoch)
		}
	}
	return nil
}

// ValidateBasic checks a proof on its own, before any state is read.
func (p ExecutionProof) ValidateBasic() error {
	if p.LeaseId == 0 {
		return errorsmod.Wrap(ErrInvalidProof, "lease id must be positive")
	}
	if !p.WindowEnd.After(p.WindowStart) {
		return errorsmod.Wrapf(ErrInvalidProof, "window [%s, %s] is empty", p.WindowStart, p.WindowEnd)
	}
	if p.ChallengeHeight <= 0 || len(p.ChallengeHash) != HashSize {
		return errorsmod.Wrapf(ErrInvalidProof, "challenge needs a positive height and a %d-byte hash", HashSize)
	}
	if len(p.SamplesRoot) != HashSize {
		return errorsmod.Wrapf(ErrInvalidProof, "samples_root must be %d bytes", HashSize)
	}
	if !IsImageDigest(p.ImageDigest) {
		return errorsmod.Wrapf(ErrInvalidProof, "image_digest %q: want sha256: and 64 lowercase hex digits", p.ImageDigest)
	}
	if len(p.AgentVersion) > MaxAgentVersionLength {
		return errorsmod.Wrapf(ErrInvalidProof, "agent_version longer than %d bytes", MaxAgentVersionLength)
	}
	if len(p.Gpus) == 0 || len(p.Gpus) > MaxProofGPUs {
		return errorsmod.Wrapf(ErrInvalidProof, "%d GPUs, want 1..%d", len(p.Gpus), MaxProofGPUs)
	}
	for i, g := range p.Gpus {
		if g.Uuid == "" || len(g.Uuid) > MaxGPUUUIDLength {
			return errorsmod.Wrapf(ErrInvalidProof, "gpu %d: uuid must be 1..%d bytes", i, MaxGPUUUIDLength)
		}
		for _, o := range p.Gpus[:i] {
			if o.Uuid == g.Uuid {
				return errorsmod.Wrapf(ErrInvalidProof, "gpu %s listed twice", g.Uuid)
			}
		}
		if g.Samples == 0 {
			return errorsmod.Wrapf(ErrTooFewSamples, "gpu %s has no samples", g.Uuid)
		}
		if g.UtilAvgBps > 10_000 || g.UtilMinBps > g.UtilAvgBps {
			return errorsmod.Wrapf(ErrInvalidProof, "gpu %s: utilisation min %d ≤ avg %d ≤ 10000 does not hold", g.Uuid, g.UtilMinBps, g.UtilAvgBps)
		}
	}
	return nil
}

// IsImageDigest reports whether s is "sha256:" and 64 lowercase hex digits.
func IsImageDigest(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	return ok && len(h) == 64 && offertypes.IsLowerHex(h)
}

// ProofInput is what an agent has at an epoch's end to prove it.
type ProofInput struct {
	LeaseID         uint64
	Epoch           uint64
	WindowStart     time.Time
	WindowEnd       time.Time
	ChallengeHeight int64
	ChallengeHash   []byte
	// GPUs are the lease's GPUs, in the lease's order.
	GPUs         []string
	Samples      []Sample
	ImageDigest  string
	AgentVersion string
}

// BuildProof makes an epoch's proof from its samples: canonical order,
// per-GPU summaries and the samples root. It returns the sorted samples
// too, which the agent keeps to serve Merkle paths (MerklePath over
// SampleLeaves of them).
func BuildProof(in ProofInput) (ExecutionProof, []Sample, error) {
	samples := append([]Sample(nil), in.Samples...)
	SortSamples(samples)
	leaves, err := SampleLeaves(samples)
	if err != nil {
		return ExecutionProof{}, nil, err
	}
	gpus, err := Summarize(samples, in.GPUs, in.WindowStart, in.WindowEnd)
	if err != nil {
		return ExecutionProof{}, nil, err
	}
	p := ExecutionProof{
		LeaseId: in.LeaseID, Epoch: in.Epoch, WindowStart: in.WindowStart.UTC(), WindowEnd: in.WindowEnd.UTC(),
		ChallengeHeight: in.ChallengeHeight, ChallengeHash: in.ChallengeHash, Gpus: gpus,
		SamplesRoot: MerkleRoot(leaves), ImageDigest: in.ImageDigest, AgentVersion: in.AgentVersion,
	}
	return p, samples, p.ValidateBasic()
}

// EpochCount is the number of epochs of a lease of duration seconds:
// ceil(duration / epochSeconds) (the last may be shorter).
func EpochCount(durationSeconds, epochSeconds uint64) uint64 {
	return (durationSeconds + epochSeconds - 1) / epochSeconds
}

// EpochWindow is epoch k's window of a lease started at start: [start +
// k×epoch, start + min((k+1)×epoch, duration)]. ok is false past the last
// epoch.
func EpochWindow(start time.Time, durationSeconds, epochSeconds, k uint64) (from, to time.Time, ok bool) {
	if k >= EpochCount(durationSeconds, epochSeconds) {
		return time.Time{}, time.Time{}, false
	}
	lo := k * epochSeconds
	hi := min(lo+epochSeconds, durationSeconds)
	return start.Add(time.Duration(lo) * time.Second), start.Add(time.Duration(hi) * time.Second), true
}
