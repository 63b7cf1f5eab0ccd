//go:build nvml

package proof

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/gpu"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestSmokeProofFromRealGPU samples the machine's first GPU through the
// real driver every second for 10 s, builds a proof of a 10 s epoch from
// the samples with the chain's encoding, and checks every sample's Merkle
// path against the root. Run on a GPU machine: scripts/gpu-smoke.sh.
func TestSmokeProofFromRealGPU(t *testing.T) {
	b, err := gpu.NewNVMLDefault()
	require.NoError(t, err)
	defer b.Close()
	devs, err := b.Devices(context.Background())
	require.NoError(t, err)
	require.NotEmpty(t, devs)
	d := devs[0]
	start := time.Now().Truncate(time.Second).Add(time.Second)
	time.Sleep(time.Until(start))
	l := Lease{ID: 1, GPUs: []string{d.UUID}, Start: start, DurationSeconds: 10, EpochSeconds: 10,
		ImageDigest: "sha256:" + "00000000000000000000000000000000000000000000000000000000000000aa"}
	var samples []settlementtypes.Sample
	for i := 0; i <= 10; i++ {
		time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second)))
		r, err := b.Read(context.Background(), d.UUID)
		require.NoError(t, err)
		s := ToSample(r, func(uint32) bool { return true })
		s.TimestampMs = start.Add(time.Duration(i) * time.Second).UnixMilli() // on the tick, as the agent's sampler does
		samples = append(samples, s)
		t.Logf("%s util=%d%% mem=%dMiB power=%.1fW energy=%dmJ temp=%dC sm=%dMHz procs=%d",
			d.UUID, r.UtilBps/100, r.MemUsedMiB, float64(r.PowerMW)/1000, r.EnergyMJ, r.TempC, r.SMClockMHz, len(r.PIDs))
	}
	hash := sha256.Sum256([]byte("smoke"))
	p, sorted, err := Build(l, 0, samples, Header{Height: 1, Hash: hash[:], Time: start.Add(time.Second)}, "smoke")
	require.NoError(t, err)
	require.Len(t, sorted, 11)
	for i := range sorted {
		path, err := Path(sorted, i)
		require.NoError(t, err)
		leaf, err := sorted[i].LeafHash()
		require.NoError(t, err)
		require.NoError(t, settlementtypes.VerifyMerklePath(p.SamplesRoot, leaf, uint64(i), p.SampleCount(), path))
	}
	t.Logf("proof: %d samples, root %x, energy %d mJ over 10 s (%.1f W avg)", p.SampleCount(), p.SamplesRoot,
		p.Gpus[0].EnergyMj, float64(p.Gpus[0].EnergyMj)/10_000)
}
