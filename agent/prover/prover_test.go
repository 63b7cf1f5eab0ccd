package prover

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/proof"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

var t0 = time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)

func testLease() proof.Lease {
	return proof.Lease{ID: 3, GPUs: []string{"GPU-a", "GPU-b"}, Start: t0, DurationSeconds: 1200, EpochSeconds: 600,
		ImageDigest: "sha256:" + string(bytes.Repeat([]byte("cd"), 32))}
}

// tick is one sampling tick of both GPUs at t.
func tick(t time.Time, i int) []settlementtypes.Sample {
	var out []settlementtypes.Sample
	for _, u := range []string{"GPU-a", "GPU-b"} {
		out = append(out, settlementtypes.Sample{GpuUuid: u, TimestampMs: t.UnixMilli(), UtilBps: 9500, MemUsedMib: 1000,
			EnergyMj: 1_000_000 + uint64(i)*2_000_000, PowerMw: 400_000, TempC: 60, SmClockMhz: 1980, Procs: 1})
	}
	return out
}

func headersEvery(d time.Duration, until time.Time) *Headers {
	h := NewHeaders(time.Hour)
	for i, t := int64(1), t0; !t.After(until); i, t = i+1, t.Add(d) {
		h.Add(proof.Header{Height: i, Hash: bytes.Repeat([]byte{byte(i)}, 32), Time: t})
	}
	return h
}

// TestProverSurvivesACrash: samples logged before a crash come back after
// a restart, and the proof built then equals the one an agent that never
// crashed builds; epochs the chain says are settled are not proven again.
func TestProverSurvivesACrash(t *testing.T) {
	dir := t.TempDir()
	l := testLease()
	headers := headersEvery(time.Minute, t0.Add(1300*time.Second))
	next := func(settled uint64) func(uint64) (uint64, error) {
		return func(uint64) (uint64, error) { return settled, nil }
	}

	steady, err := New(t.TempDir(), "test")
	require.NoError(t, err)
	require.NoError(t, steady.Track(l))
	crashy, err := New(dir, "test")
	require.NoError(t, err)
	require.NoError(t, crashy.Track(l))
	for i, at := 0, t0; !at.After(t0.Add(1200 * time.Second)); i, at = i+1, at.Add(5*time.Second) {
		require.NoError(t, steady.Record(l.ID, tick(at, i)))
		require.NoError(t, crashy.Record(l.ID, tick(at, i)))
		if i == 70 { // SIGKILL: the process is gone, its files stay
			crashy, err = New(dir, "test")
			require.NoError(t, err)
			require.NoError(t, crashy.Track(l))
		}
	}
	want, err := steady.Due(t0.Add(1300*time.Second), next(0), headers)
	require.NoError(t, err)
	got, err := crashy.Due(t0.Add(1300*time.Second), next(0), headers)
	require.NoError(t, err)
	require.Len(t, want, 2)
	require.Equal(t, want, got)
	require.EqualValues(t, 120, want[0].Gpus[0].Samples, "[0, 600) at 5 s: the tick at 600 s is epoch 1's")

	got, err = crashy.Due(t0.Add(1300*time.Second), next(1), headers)
	require.NoError(t, err)
	require.Len(t, got, 1, "epoch 0 is settled on chain: only epoch 1 is due")
	require.EqualValues(t, 1, got[0].Epoch)
	got, err = crashy.Due(t0.Add(1300*time.Second), next(2), headers)
	require.NoError(t, err)
	require.Empty(t, got)

	require.NoError(t, crashy.Forget(l.ID))
	require.Empty(t, crashy.Tracked())
	require.NoError(t, steady.Close())
}

func TestProverWaitsForEpochEndAndAChallenge(t *testing.T) {
	p, err := New(t.TempDir(), "test")
	require.NoError(t, err)
	l := testLease()
	require.NoError(t, p.Track(l))
	for i, at := 0, t0; at.Before(t0.Add(600 * time.Second)); i, at = i+1, at.Add(5*time.Second) {
		require.NoError(t, p.Record(l.ID, tick(at, i)))
	}
	zero := func(uint64) (uint64, error) { return 0, nil }
	got, err := p.Due(t0.Add(599*time.Second), zero, headersEvery(time.Minute, t0.Add(599*time.Second)))
	require.NoError(t, err)
	require.Empty(t, got, "epoch 0 has not ended")
	got, err = p.Due(t0.Add(700*time.Second), zero, NewHeaders(time.Hour))
	require.NoError(t, err)
	require.Empty(t, got, "no header inside the window yet")
	got, err = p.Due(t0.Add(700*time.Second), zero, headersEvery(time.Minute, t0.Add(700*time.Second)))
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.EqualValues(t, 1, got[0].ChallengeHeight, "the first header inside the window")
	require.Error(t, p.Record(99, nil), "an untracked lease")
}

func TestHeadersRing(t *testing.T) {
	h := NewHeaders(2 * time.Minute)
	for i := int64(1); i <= 10; i++ {
		h.Add(proof.Header{Height: i, Time: t0.Add(time.Duration(i) * time.Minute)})
	}
	h.Add(proof.Header{Height: 5, Time: t0.Add(99 * time.Minute)}) // a replayed height is ignored
	latest, ok := h.Latest()
	require.True(t, ok)
	require.EqualValues(t, 10, latest.Height)
	_, ok = h.In(t0, t0.Add(7*time.Minute+59*time.Second))
	require.False(t, ok, "older than the ring keeps")
	got, ok := h.In(t0.Add(8*time.Minute), t0.Add(time.Hour))
	require.True(t, ok)
	require.EqualValues(t, 8, got.Height)
}

// TestProverCutProvesThePartialLastEpoch: a lease ended early (CLOSING) 660 s
// in has its last epoch cut to [600 s, 660 s]: the prover builds exactly
// that window from the samples taken, and a tail with no sample waits (the
// chain excuses it).
func TestProverCutProvesThePartialLastEpoch(t *testing.T) {
	p, err := New(t.TempDir(), "test")
	require.NoError(t, err)
	l := testLease()
	require.NoError(t, p.Track(l))
	for i, at := 0, t0; !at.After(t0.Add(700 * time.Second)); i, at = i+1, at.Add(5*time.Second) {
		require.NoError(t, p.Record(l.ID, tick(at, i)))
	}
	p.Cut(l.ID, 660)
	p.Cut(l.ID, 900) // never lengthens
	cut, _ := p.Lease(l.ID)
	require.EqualValues(t, 660, cut.DurationSeconds)
	one := func(uint64) (uint64, error) { return 1, nil }
	got, err := p.Due(t0.Add(700*time.Second), one, headersEvery(time.Second, t0.Add(700*time.Second)))
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, t0.Add(600*time.Second), got[0].WindowStart)
	require.Equal(t, t0.Add(660*time.Second), got[0].WindowEnd)
	require.EqualValues(t, 13, got[0].Gpus[0].Samples, "the samples from 600 s to 660 s, none after the close")

	require.NoError(t, p.Track(proof.Lease{ID: 4, GPUs: l.GPUs, Start: t0, DurationSeconds: 1200, EpochSeconds: 600, ImageDigest: l.ImageDigest}))
	p.Cut(4, 602) // a 2 s tail with no sample in it
	got, err = p.Due(t0.Add(700*time.Second), func(id uint64) (uint64, error) { return map[uint64]uint64{3: 2, 4: 1}[id], nil },
		headersEvery(time.Second, t0.Add(700*time.Second)))
	require.NoError(t, err)
	require.Empty(t, got, "nothing to prove in a tail without samples")
}

// TestProverServesTheProofsSamplesAfterACut: a lease closed early 660 s in,
// with ticks logged up to 700 s before the close was known: the samples
// served for each epoch, the cut one included, are exactly the proof's and
// hash to its samples root, as the endpoint computes it for the renter.
func TestProverServesTheProofsSamplesAfterACut(t *testing.T) {
	p, err := New(t.TempDir(), "test")
	require.NoError(t, err)
	l := testLease()
	require.NoError(t, p.Track(l))
	for i, at := 0, t0; !at.After(t0.Add(700 * time.Second)); i, at = i+1, at.Add(5*time.Second) {
		require.NoError(t, p.Record(l.ID, tick(at, i)))
	}
	require.NoError(t, p.Record(l.ID, tick(t0.Add(610*time.Second), 122)), "a tick logged again after a restart")
	before, ok := p.Samples(l.ID, 1)
	require.True(t, ok)
	require.Len(t, before, 2*21, "before the cut: [600 s, 700 s], the repeated tick once")

	p.Cut(l.ID, 660)
	proofs, err := p.Due(t0.Add(700*time.Second), func(uint64) (uint64, error) { return 0, nil },
		headersEvery(time.Second, t0.Add(700*time.Second)))
	require.NoError(t, err)
	require.Len(t, proofs, 2)
	for _, pr := range proofs {
		served, ok := p.Samples(l.ID, pr.Epoch)
		require.True(t, ok)
		require.EqualValues(t, len(served), pr.SampleCount(), "epoch %d", pr.Epoch)
		leaves, err := settlementtypes.SampleLeaves(served)
		require.NoError(t, err)
		root, _ := settlementtypes.MerklePaths(leaves)
		require.Equal(t, pr.SamplesRoot, root, "epoch %d: the served samples are the proof's", pr.Epoch)
	}
	cut, _ := p.Samples(l.ID, 1)
	require.Len(t, cut, 2*13, "the cut epoch: [600 s, 660 s], none logged after the close")
	require.Equal(t, t0.Add(660*time.Second).UnixMilli(), cut[len(cut)-1].TimestampMs)
}

// TestProverAppendsOfOneLeaseDoNotBlockAnother: the prover serialises
// writes per lease, so one lease's samples stay readable while another's
// log is written.
func TestProverAppendsOfOneLeaseDoNotBlockAnother(t *testing.T) {
	p, err := New(t.TempDir(), "test")
	require.NoError(t, err)
	defer p.Close()
	a, b := testLease(), testLease()
	b.ID = 4
	require.NoError(t, p.Track(a))
	require.NoError(t, p.Track(b))
	require.NoError(t, p.Record(b.ID, tick(t0, 0)))

	// Hold lease a's log lock as an append in progress does.
	ta := p.leases[a.ID]
	ta.logsMu.Lock()
	got, ok := p.Samples(b.ID, 0)
	require.True(t, ok)
	require.Len(t, got, 2)
	require.NoError(t, p.Record(b.ID, tick(t0.Add(5*time.Second), 1)))
	ta.logsMu.Unlock()

	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, p.Record(a.ID, tick(t0.Add(time.Duration(i)*time.Second), i)))
			_, _ = p.Samples(a.ID, 0)
		}()
	}
	wg.Wait()
	got, _ = p.Samples(a.ID, 0)
	require.Len(t, got, 2*20, "every concurrent append kept")
}

// TestProverSkipsAWindowWithoutABlock: a halt from 590 s to 1210 s left
// epoch 1's window [600, 1200] without a block. The agent knows it from
// two consecutive heights around the window and proves epoch 2 right
// after it ends: the chain excuses epoch 1 on that proof. Headers with a
// gap of their own (an agent restarted after the halt) prove nothing, and
// epoch 2 waits as before.
func TestProverSkipsAWindowWithoutABlock(t *testing.T) {
	p, err := New(t.TempDir(), "test")
	require.NoError(t, err)
	l := testLease()
	l.DurationSeconds = 1800
	require.NoError(t, p.Track(l))
	for i, at := 0, t0; at.Before(t0.Add(1800 * time.Second)); i, at = i+1, at.Add(5*time.Second) {
		require.NoError(t, p.Record(l.ID, tick(at, i)))
	}
	h := NewHeaders(time.Hour)
	add := func(height int64, at time.Duration) {
		h.Add(proof.Header{Height: height, Hash: bytes.Repeat([]byte{byte(height)}, 32), Time: t0.Add(at)})
	}
	for i := range int64(60) { // every 10 s up to 590 s
		add(i+1, time.Duration(i)*10*time.Second)
	}
	add(61, 1210*time.Second) // the first block after the halt
	for i := range int64(60) {
		add(62+i, 1220*time.Second+time.Duration(i)*10*time.Second)
	}
	require.True(t, h.Empty(t0.Add(600*time.Second), t0.Add(1200*time.Second)))
	require.False(t, h.Empty(t0.Add(0), t0.Add(600*time.Second)), "epoch 0's window has blocks")

	got, err := p.Due(t0.Add(1810*time.Second), func(uint64) (uint64, error) { return 1, nil }, h)
	require.NoError(t, err)
	require.Len(t, got, 1, "epoch 1 skipped, epoch 2 proven")
	require.EqualValues(t, 2, got[0].Epoch)
	require.EqualValues(t, 61, got[0].ChallengeHeight)

	gappy := NewHeaders(time.Hour)
	gappy.Add(proof.Header{Height: 50, Hash: bytes.Repeat([]byte{50}, 32), Time: t0.Add(500 * time.Second)})
	gappy.Add(proof.Header{Height: 70, Hash: bytes.Repeat([]byte{70}, 32), Time: t0.Add(1300 * time.Second)})
	require.False(t, gappy.Empty(t0.Add(600*time.Second), t0.Add(1200*time.Second)), "heights 51..69 were not seen")
	got, err = p.Due(t0.Add(1810*time.Second), func(uint64) (uint64, error) { return 1, nil }, gappy)
	require.NoError(t, err)
	require.Empty(t, got, "epoch 1 is not shown empty: epoch 2 waits")
}
