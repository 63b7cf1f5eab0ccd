package proof

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/gpu"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

var start = time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)

func lease() Lease {
	return Lease{ID: 7, GPUs: []string{"GPU-b", "GPU-a"}, Start: start, DurationSeconds: 1500, EpochSeconds: 600,
		ImageDigest: "sha256:" + string(bytes.Repeat([]byte("ab"), 32))}
}

func TestEpochOf(t *testing.T) {
	l := lease() // epochs [0,600) [600,1200) [1200,1500]
	for _, tc := range []struct {
		at   time.Duration
		want uint64
		ok   bool
	}{
		{-time.Second, 0, false}, {0, 0, true}, {599 * time.Second, 0, true}, {600 * time.Second, 1, true},
		{1199 * time.Second, 1, true}, {1200 * time.Second, 2, true}, {1500 * time.Second, 2, true},
		{1500*time.Second + time.Millisecond, 0, false},
	} {
		k, ok := l.EpochOf(start.Add(tc.at))
		require.Equal(t, tc.ok, ok, "at %s", tc.at)
		require.Equal(t, tc.want, k, "at %s", tc.at)
	}
	require.EqualValues(t, 3, l.Epochs())
}

func TestToSampleCountsOnlyTheJobsProcesses(t *testing.T) {
	r := gpu.Reading{UUID: "GPU-a", Time: start.Add(1500 * time.Millisecond), UtilBps: 9700, MemUsedMiB: 70_000,
		EnergyMJ: 123, PowerMW: 650_000, TempC: 71, SMClockMHz: 1980, PIDs: []uint32{10, 11, 99}, XIDErrors: 1}
	s := ToSample(r, func(pid uint32) bool { return pid == 10 || pid == 11 })
	require.Equal(t, settlementtypes.Sample{GpuUuid: "GPU-a", TimestampMs: start.UnixMilli() + 1500, UtilBps: 9700,
		MemUsedMib: 70_000, EnergyMj: 123, PowerMw: 650_000, TempC: 71, SmClockMhz: 1980, Procs: 2, XidErrors: 1}, s)
}

// samples makes a 5 s sampling of every GPU over [from, to].
func samples(l Lease, from, to time.Time) []settlementtypes.Sample {
	var out []settlementtypes.Sample
	for _, u := range l.GPUs {
		for i, t := 0, from; !t.After(to); i, t = i+1, t.Add(5*time.Second) {
			out = append(out, settlementtypes.Sample{GpuUuid: u, TimestampMs: t.UnixMilli(), UtilBps: 9000,
				MemUsedMib: 1000, EnergyMj: 1_000_000 + uint64(i)*2_000_000, PowerMw: 400_000, TempC: 60, SmClockMhz: 1980, Procs: 1})
		}
	}
	return out
}

func TestBuildKeepsOnlyTheEpochsSamples(t *testing.T) {
	l := lease()
	from, to, _ := l.Window(1)
	good := samples(l, from, to)
	noise := append([]settlementtypes.Sample{}, good...)
	noise = append(noise, good[3])                                                                           // a tick logged twice
	noise = append(noise, settlementtypes.Sample{GpuUuid: "GPU-z", TimestampMs: from.UnixMilli(), Procs: 1}) // not the lease's
	noise = append(noise, samples(l, to.Add(time.Second), to.Add(time.Second))...)                           // the next epoch's
	h := Header{Height: 42, Hash: bytes.Repeat([]byte{7}, 32), Time: from.Add(3 * time.Second)}

	p, sorted, err := Build(l, 1, noise, h, "test")
	require.NoError(t, err)
	want, wantSorted, err := Build(l, 1, good, h, "test")
	require.NoError(t, err)
	require.Equal(t, want, p, "noise changes nothing")
	require.Equal(t, wantSorted, sorted)
	require.Len(t, sorted, 2*121)
	require.EqualValues(t, 1, p.Epoch)
	require.Equal(t, from, p.WindowStart)
	require.Equal(t, to, p.WindowEnd)
	require.EqualValues(t, 42, p.ChallengeHeight)
	require.Equal(t, []string{"GPU-b", "GPU-a"}, []string{p.Gpus[0].Uuid, p.Gpus[1].Uuid})

	// Every sample's path leads to the root, as a renter checks it.
	for _, i := range []int{0, 1, 120, 241} {
		path, err := Path(sorted, i)
		require.NoError(t, err)
		leaf, err := sorted[i].LeafHash()
		require.NoError(t, err)
		require.NoError(t, settlementtypes.VerifyMerklePath(p.SamplesRoot, leaf, uint64(i), p.SampleCount(), path))
	}
}

func TestBuildRefusesAChallengeOutsideTheWindow(t *testing.T) {
	l := lease()
	from, to, _ := l.Window(0)
	_, _, err := Build(l, 0, samples(l, from, to), Header{Height: 1, Hash: make([]byte, 32), Time: to.Add(time.Second)}, "test")
	require.ErrorIs(t, err, ErrNoChallenge)
	_, _, err = Build(l, 3, nil, Header{}, "test")
	require.ErrorContains(t, err, "has no epoch 3")
}

// TestEpochSamplesFollowTheCut: the samples kept are the proof's, and an
// early end cuts the last epoch's window, dropping what was logged after it.
func TestEpochSamplesFollowTheCut(t *testing.T) {
	l := lease()
	from, to, _ := l.Window(1)
	logged := samples(l, from, to) // 121 ticks of each GPU in [600 s, 1200 s]
	logged = append(logged, logged[5])

	kept, ok := EpochSamples(l, 1, logged)
	require.True(t, ok)
	require.Len(t, kept, 2*121, "the repeated tick once")
	_, sorted, err := Build(l, 1, logged, Header{Height: 1, Hash: make([]byte, 32), Time: from}, "test")
	require.NoError(t, err)
	require.Equal(t, sorted, kept, "Build commits to exactly EpochSamples")

	l.DurationSeconds = 660 // ended early at 660 s: epoch 1 is [600 s, 660 s]
	kept, ok = EpochSamples(l, 1, logged)
	require.True(t, ok)
	require.Len(t, kept, 2*13)
	require.Equal(t, from.Add(60*time.Second).UnixMilli(), kept[len(kept)-1].TimestampMs)
	_, ok = EpochSamples(l, 2, logged)
	require.False(t, ok, "no epoch past the cut")
}
