package types_test

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

var updateVectors = flag.Bool("update", false, "rewrite testdata/proof_vectors.json from the current code")

// proofVectors is the checked-in shape of testdata/proof_vectors.json: fixed
// samples and what any implementation of the proof format must derive
// from them.
type proofVectors struct {
	Comment     string             `json:"comment"`
	WindowStart string             `json:"window_start"`
	WindowEnd   string             `json:"window_end"`
	GPUs        []string           `json:"gpus"`
	Samples     []types.Sample     `json:"samples"` // canonical order
	Encodings   []string           `json:"encodings"`
	LeafHashes  []string           `json:"leaf_hashes"`
	Root        string             `json:"samples_root"`
	Summaries   []types.GPUSummary `json:"summaries"`
	Paths       [][]string         `json:"paths"` // audit path of each leaf
}

// vectorSamples are two GPUs sampled every 10 s over one minute, given out
// of order so the canonical sort is exercised.
func vectorSamples() ([]types.Sample, []string, time.Time, time.Time) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	gpus := []string{"GPU-5f2c7a64-0000-4000-8000-000000000001", "GPU-5f2c7a64-0000-4000-8000-000000000000"}
	var out []types.Sample
	for i := 6; i >= 0; i-- {
		for g, u := range gpus {
			out = append(out, types.Sample{
				GpuUuid: u, TimestampMs: start.Add(time.Duration(i) * 10 * time.Second).UnixMilli(),
				UtilBps: uint32(9000 + 100*i + g), MemUsedMib: uint64(70_000 + 10*i), EnergyMj: uint64(5_000_000 + 6_000_000*i + g),
				PowerMw: uint32(600_000 + 1000*i), TempC: uint32(60 + i), SmClockMhz: 1980, Procs: 1 + uint32(g), XidErrors: 0,
			})
		}
	}
	return out, gpus, start, start.Add(time.Minute)
}

func buildVectors(t *testing.T) proofVectors {
	samples, gpus, start, end := vectorSamples()
	p, sorted, err := types.BuildProof(types.ProofInput{
		LeaseID: 1, Epoch: 0, WindowStart: start, WindowEnd: end, ChallengeHeight: 1, ChallengeHash: make([]byte, 32),
		GPUs: gpus, Samples: samples, ImageDigest: "sha256:" + hexOf(make([]byte, 32)),
	})
	require.NoError(t, err)
	leaves, err := types.SampleLeaves(sorted)
	require.NoError(t, err)
	v := proofVectors{
		Comment:     "x/settlement proof format v1: canonical sample bytes, RFC 6962 leaves (sha256(0x00||bytes)), root, per-GPU summaries and audit paths. Regenerate only on a deliberate format change: go test ./x/settlement/types -run TestProofVectors -update",
		WindowStart: start.Format(time.RFC3339), WindowEnd: end.Format(time.RFC3339), GPUs: gpus, Samples: sorted,
		Root: hexOf(p.SamplesRoot), Summaries: p.Gpus,
	}
	for i, s := range sorted {
		b, err := types.EncodeSample(s)
		require.NoError(t, err)
		v.Encodings = append(v.Encodings, hexOf(b))
		v.LeafHashes = append(v.LeafHashes, hexOf(leaves[i]))
		path, err := types.MerklePath(leaves, i)
		require.NoError(t, err)
		var hp []string
		for _, h := range path {
			hp = append(hp, hexOf(h))
		}
		v.Paths = append(v.Paths, hp)
	}
	return v
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }

// TestProofVectors: the code derives exactly the checked-in vectors, and
// the vectors are self-consistent (each encoding decodes to its sample,
// each path verifies): another implementation (the agent's, a renter's
// checker) can test itself against the file alone.
func TestProofVectors(t *testing.T) {
	file := filepath.Join("testdata", "proof_vectors.json")
	got := buildVectors(t)
	if *updateVectors {
		b, err := json.MarshalIndent(got, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(file, append(b, '\n'), 0o644))
	}
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	var want proofVectors
	require.NoError(t, json.Unmarshal(raw, &want))
	require.Equal(t, want, got, "the proof format changed; if on purpose, regenerate with -update and say so")

	root := unhex(t, want.Root)
	for i, enc := range want.Encodings {
		s, err := types.DecodeSample(unhex(t, enc))
		require.NoError(t, err)
		require.Equal(t, want.Samples[i], s)
		require.Equal(t, want.LeafHashes[i], hexOf(types.LeafHash(unhex(t, enc))))
		var path [][]byte
		for _, h := range want.Paths[i] {
			path = append(path, unhex(t, h))
		}
		require.NoError(t, types.VerifyMerklePath(root, unhex(t, want.LeafHashes[i]), uint64(i), uint64(len(want.Encodings)), path))
	}
}
