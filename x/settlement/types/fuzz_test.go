package types_test

import (
	"testing"

	"github.com/idlegpu/idlegpu/x/internal/paramstest"
	"github.com/idlegpu/idlegpu/x/settlement/audit"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// FuzzGenesisDecodeValidate: arbitrary bytes through genesis decoding and
// validation never panic (seeds: out-of-range and malformed params).
func FuzzGenesisDecodeValidate(f *testing.F) {
	paramstest.FuzzGenesis(f, types.DefaultGenesis(),
		`{"params":{"take_rate_bps":10000,"gpu_models":[{"model":"","max_w":1}]}}`,
		`{"params":{"epoch_seconds":"18446744073709551615","sample_interval_seconds":"99999999999"}}`,
	)
}

// FuzzDecodeSample: any bytes that decode re-encode to exactly those bytes
// (one encoding per sample), and decoding never panics.
func FuzzDecodeSample(f *testing.F) {
	good, err := types.EncodeSample(types.Sample{GpuUuid: "GPU-1", TimestampMs: 1, UtilBps: 10000, Procs: 1})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte{})
	f.Add(append([]byte{2}, good[1:]...))
	f.Add(append(good, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := types.DecodeSample(b)
		if err != nil {
			return
		}
		again, err := types.EncodeSample(s)
		if err != nil {
			t.Fatalf("decoded sample does not encode: %v", err)
		}
		if string(again) != string(b) {
			t.Fatalf("%x decodes to %v, which encodes to %x", b, s, again)
		}
	})
}

// FuzzAuditProof: any openings of any root, for any sample set, are judged
// without a panic: refused (an error) unless every state proves under the
// root at its sampled index, and then CORRECT or WRONG by recomputation.
// Random bytes never prove, so random openings are always refused.
func FuzzAuditProof(f *testing.F) {
	f.Add(make([]byte, 32), make([]byte, 32), make([]byte, 32), uint64(0), []byte{})
	f.Add([]byte{1}, make([]byte, 33), []byte{}, uint64(5), make([]byte, 64))
	shape := audit.Shape{TableItems: audit.CacheItems, Lanes: 4, Segments: 4, SegmentSteps: 2}
	f.Fuzz(func(t *testing.T, seed, root, state []byte, leaf uint64, path []byte) {
		var p [][]byte
		for i := 0; i+32 <= len(path); i += 32 {
			p = append(p, path[i:i+32])
		}
		o := types.AuditOpening{LeafIndex: leaf, State: state, Path: p, PrevState: state, PrevPath: p}
		m := types.MsgProveAudit{Openings: []types.AuditOpening{o}}
		_ = m.ValidateBasic()
		status, err := types.AuditVerdict(seed, root, shape, []uint64{leaf}, []types.AuditOpening{o})
		if err == nil {
			t.Fatalf("random opening judged %s", status)
		}
	})
}
