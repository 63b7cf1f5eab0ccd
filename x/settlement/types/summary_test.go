package types_test

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

func TestEncodeSampleLayout(t *testing.T) {
	s := types.Sample{GpuUuid: "GPU-a", TimestampMs: 1_700_000_000_123, UtilBps: 9876, MemUsedMib: 81_000, EnergyMj: 1 << 40,
		PowerMw: 700_000, TempC: 71, SmClockMhz: 1980, Procs: 3, XidErrors: 2}
	b, err := types.EncodeSample(s)
	require.NoError(t, err)
	require.Len(t, b, 1+2+5+8+4+8+8+4*5)
	require.Equal(t, byte(1), b[0], "version")
	require.Equal(t, uint16(5), binary.BigEndian.Uint16(b[1:3]))
	require.Equal(t, "GPU-a", string(b[3:8]))
	require.Equal(t, uint64(1_700_000_000_123), binary.BigEndian.Uint64(b[8:16]))
	require.Equal(t, uint32(2), binary.BigEndian.Uint32(b[len(b)-4:]), "xid_errors last")
	back, err := types.DecodeSample(b)
	require.NoError(t, err)
	require.Equal(t, s, back)

	for name, bad := range map[string]types.Sample{
		"no uuid":         {TimestampMs: 1},
		"long uuid":       {GpuUuid: string(make([]byte, 129)), TimestampMs: 1},
		"negative time":   {GpuUuid: "g", TimestampMs: -1},
		"util over 10000": {GpuUuid: "g", UtilBps: 10_001},
	} { //detlint:allow independent cases
		_, err := types.EncodeSample(bad)
		require.ErrorIs(t, err, types.ErrInvalidSample, name)
	}
	for name, bad := range map[string][]byte{
		"short":         b[:10],
		"trailing byte": append(append([]byte{}, b...), 0),
		"other version": append([]byte{2}, b[1:]...),
		"uuid too long": append([]byte{1, 0, 6}, b[3:]...),
		"util over 1e4": func() []byte { c := append([]byte{}, b...); binary.BigEndian.PutUint32(c[16:20], 10_001); return c }(),
	} { //detlint:allow independent cases
		_, err := types.DecodeSample(bad)
		require.ErrorIs(t, err, types.ErrInvalidSample, name)
	}
}

// TestSummarize pins every summary figure on hand-computed samples.
func TestSummarize(t *testing.T) {
	start := time.Unix(1000, 0).UTC()
	end := start.Add(30 * time.Second)
	gpus := []string{"GPU-b", "GPU-a"}
	at := func(sec int) int64 { return start.Add(time.Duration(sec) * time.Second).UnixMilli() }
	samples := []types.Sample{
		{GpuUuid: "GPU-a", TimestampMs: at(0), UtilBps: 9000, MemUsedMib: 100, EnergyMj: 1_000, PowerMw: 300_000, TempC: 50, SmClockMhz: 1000, Procs: 2},
		{GpuUuid: "GPU-a", TimestampMs: at(30), UtilBps: 8001, MemUsedMib: 300, EnergyMj: 9_001_000, PowerMw: 301_000, TempC: 70, SmClockMhz: 1001, Procs: 1, XidErrors: 1},
		{GpuUuid: "GPU-a", TimestampMs: at(10), UtilBps: 10000, MemUsedMib: 200, EnergyMj: 3_001_000, PowerMw: 299_000, TempC: 60, SmClockMhz: 1002, Procs: 2, XidErrors: 2},
		{GpuUuid: "GPU-b", TimestampMs: at(15), UtilBps: 5000, MemUsedMib: 7, EnergyMj: 42, PowerMw: 1, TempC: 40, SmClockMhz: 9, Procs: 1},
	}
	got, err := types.Summarize(samples, gpus, start, end)
	require.NoError(t, err)
	require.Equal(t, []types.GPUSummary{
		{Uuid: "GPU-b", Samples: 1, UtilAvgBps: 5000, UtilMinBps: 5000, MemUsedMaxMib: 7, EnergyMj: 0, PowerAvgMw: 1, TempMaxC: 40, SmClockAvgMhz: 9, ProcsMin: 1},
		// util (9000+8001+10000)/3 = 9000 (rounded down); energy 9,001,000 − 1,000.
		{Uuid: "GPU-a", Samples: 3, UtilAvgBps: 9000, UtilMinBps: 8001, MemUsedMaxMib: 300, EnergyMj: 9_000_000, PowerAvgMw: 300_000, TempMaxC: 70, SmClockAvgMhz: 1001, ProcsMin: 1, XidErrors: 3},
	}, got)

	_, err = types.Summarize(samples[:3], gpus, start, end)
	require.ErrorIs(t, err, types.ErrTooFewSamples, "GPU-b has no sample")
	_, err = types.Summarize(append(samples, types.Sample{GpuUuid: "GPU-x", TimestampMs: at(1)}), gpus, start, end)
	require.ErrorIs(t, err, types.ErrInvalidSample, "a GPU outside the lease")
	_, err = types.Summarize(append(samples, types.Sample{GpuUuid: "GPU-b", TimestampMs: at(31)}), gpus, start, end)
	require.ErrorIs(t, err, types.ErrInvalidSample, "after the window")
	back := samples[1]
	back.EnergyMj = 500
	_, err = types.Summarize([]types.Sample{samples[0], back, samples[3]}, gpus, start, end)
	require.ErrorIs(t, err, types.ErrInvalidSample, "an energy counter that goes back")
}

// TestContradiction: only a sample outside the summary's stated bounds
// contradicts it.
func TestContradiction(t *testing.T) {
	samples, gpus, start, end := vectorSamples()
	p, sorted, err := types.BuildProof(types.ProofInput{
		LeaseID: 1, WindowStart: start, WindowEnd: end, ChallengeHeight: 1, ChallengeHash: make([]byte, 32),
		GPUs: gpus, Samples: samples, ImageDigest: "sha256:" + hexOf(make([]byte, 32)),
	})
	require.NoError(t, err)
	for _, s := range sorted {
		require.Empty(t, p.Contradiction(s), "an honest sample: %v", s)
	}
	s := sorted[0]
	for name, edit := range map[string]func(*types.Sample){
		"gpu not in proof": func(s *types.Sample) { s.GpuUuid = "GPU-other" },
		"before window":    func(s *types.Sample) { s.TimestampMs = start.UnixMilli() - 1 },
		"after window":     func(s *types.Sample) { s.TimestampMs = end.UnixMilli() + 1 },
		"no job process":   func(s *types.Sample) { s.Procs = 0 },
		"idle":             func(s *types.Sample) { s.UtilBps = 0 },
		"more memory":      func(s *types.Sample) { s.MemUsedMib = 1 << 40 },
		"hotter":           func(s *types.Sample) { s.TempC = 200 },
	} { //detlint:allow independent cases
		c := s
		edit(&c)
		require.NotEmpty(t, p.Contradiction(c), name)
	}
	require.Equal(t, uint64(len(sorted)), p.SampleCount())
}

func TestProofValidateBasic(t *testing.T) {
	samples, gpus, start, end := vectorSamples()
	good, _, err := types.BuildProof(types.ProofInput{
		LeaseID: 1, WindowStart: start, WindowEnd: end, ChallengeHeight: 1, ChallengeHash: make([]byte, 32),
		GPUs: gpus, Samples: samples, ImageDigest: "sha256:" + hexOf(make([]byte, 32)),
	})
	require.NoError(t, err)
	for name, edit := range map[string]func(*types.ExecutionProof){
		"no lease":        func(p *types.ExecutionProof) { p.LeaseId = 0 },
		"empty window":    func(p *types.ExecutionProof) { p.WindowEnd = p.WindowStart },
		"no challenge":    func(p *types.ExecutionProof) { p.ChallengeHeight = 0 },
		"short challenge": func(p *types.ExecutionProof) { p.ChallengeHash = p.ChallengeHash[:31] },
		"short root":      func(p *types.ExecutionProof) { p.SamplesRoot = nil },
		"bad digest":      func(p *types.ExecutionProof) { p.ImageDigest = "latest" },
		"no gpus":         func(p *types.ExecutionProof) { p.Gpus = nil },
		"gpu twice":       func(p *types.ExecutionProof) { p.Gpus = append(p.Gpus, p.Gpus[0]) },
		"min above avg":   func(p *types.ExecutionProof) { p.Gpus[0].UtilMinBps = p.Gpus[0].UtilAvgBps + 1 },
		"long version":    func(p *types.ExecutionProof) { p.AgentVersion = string(make([]byte, 65)) },
	} { //detlint:allow independent cases
		p := good
		p.Gpus = append([]types.GPUSummary(nil), good.Gpus...)
		edit(&p)
		require.Error(t, p.ValidateBasic(), name)
	}
	require.NoError(t, good.ValidateBasic())
}
