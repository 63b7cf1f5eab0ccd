package cmd

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/endpoint"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// servedEpoch builds an epoch's proof from samples and what an honest
// endpoint serves for it: every sample with its path.
func servedEpoch(t *testing.T, utils []uint32) (settlementtypes.ExecutionProof, endpoint.SamplesResponse) {
	t.Helper()
	start := time.Unix(1_800_000_000, 0).UTC()
	const gpu = "GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ab"
	var samples []settlementtypes.Sample
	for i, u := range utils {
		samples = append(samples, settlementtypes.Sample{
			GpuUuid: gpu, TimestampMs: start.Add(time.Duration(i+1) * 5 * time.Second).UnixMilli(),
			UtilBps: u, MemUsedMib: 40_000, EnergyMj: uint64(i) * 1_000_000, PowerMw: 300_000, TempC: 60, SmClockMhz: 1_800, Procs: 1,
		})
	}
	proof, sorted, err := settlementtypes.BuildProof(settlementtypes.ProofInput{
		LeaseID: 7, Epoch: 2, WindowStart: start, WindowEnd: start.Add(time.Duration(len(utils)+1) * 5 * time.Second),
		ChallengeHeight: 10, ChallengeHash: make([]byte, 32), GPUs: []string{gpu}, Samples: samples,
		ImageDigest: "sha256:0000000000000000000000000000000000000000000000000000000000000000",
	})
	require.NoError(t, err)
	leaves, err := settlementtypes.SampleLeaves(sorted)
	require.NoError(t, err)
	root, paths := settlementtypes.MerklePaths(leaves)
	require.Equal(t, proof.SamplesRoot, root)
	resp := endpoint.SamplesResponse{LeaseID: 7, Epoch: 2, SamplesRoot: root}
	for i, s := range sorted {
		resp.Samples = append(resp.Samples, endpoint.SampleWithPath{Sample: s, LeafIndex: uint64(i), Path: paths[i]})
	}
	return proof, resp
}

// TestCheckFindsWhatTheChainWouldConvict: an honest proof has no
// contradiction; a proof claiming more utilisation than one of its own
// samples shows is caught at that sample, with a path the chain verifies
// against the proof's own sample count, so the report it files is accepted.
func TestCheckFindsWhatTheChainWouldConvict(t *testing.T) {
	utils := []uint32{9_500, 9_600, 1_000, 9_700, 9_800}
	proof, served := servedEpoch(t, utils)

	found, err := contradictions(proof, served)
	require.NoError(t, err)
	require.Empty(t, found, "the honest summary's util_min is the lowest sample")

	proof.Gpus[0].UtilMinBps = 9_000 // the provider claims the GPU never dropped below 90 %
	found, err = contradictions(proof, served)
	require.NoError(t, err)
	require.Len(t, found, 1)
	f := found[0]
	require.Equal(t, uint32(1_000), f.Sample.UtilBps)
	require.Contains(t, f.why, "was at 1000 bps utilisation, the proof claims at least 9000")
	leaf, err := f.Sample.LeafHash()
	require.NoError(t, err)
	require.NoError(t, settlementtypes.VerifyMerklePath(proof.SamplesRoot, leaf, f.LeafIndex, proof.SampleCount(), f.Path))
}

// TestCheckRefusesAPartialTree: paths built for fewer samples than the proof
// counts would be refused on chain, so the check says so instead of
// reporting.
func TestCheckRefusesAPartialTree(t *testing.T) {
	proof, served := servedEpoch(t, []uint32{9_500, 9_600, 9_700})
	served.Samples = served.Samples[:2]
	_, err := contradictions(proof, served)
	require.EqualError(t, err, "the endpoint served 2 samples but the proof on chain counts 3")
}
