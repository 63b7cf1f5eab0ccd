package types_test

import (
	"testing"

	sdk "github.com/cosmos/cosmos-sdk/types"

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

// FuzzAuditOpening: any salt and expected open the commitment exactly when
// both are 32 bytes and hash to it, and an opening's stateless check never
// panics and accepts only the documented sizes.
func FuzzAuditOpening(f *testing.F) {
	f.Add(make([]byte, 32), make([]byte, 32), make([]byte, 32), uint64(1))
	f.Add([]byte{1}, make([]byte, 33), []byte{}, uint64(0))
	f.Fuzz(func(t *testing.T, salt, expected, seed []byte, units uint64) {
		var c [32]byte
		if len(salt) == 32 && len(expected) == 32 {
			c = audit.Commitment([32]byte(salt), [32]byte(expected))
		}
		if got := types.Opens(c[:], salt, expected); got != (len(salt) == 32 && len(expected) == 32) {
			t.Fatalf("Opens(%x, %x) = %t", salt, expected, got)
		}
		m := types.MsgOpenAudit{GpuUuid: "GPU-1", Workload: audit.MatMulV1Name, Seed: seed, WorkUnits: units,
			Commitment: expected, Fee: sdk.NewInt64Coin("uusdc", 1)}
		if err := m.ValidateBasic(); (err == nil) != (len(seed) == 32 && units > 0 && len(expected) == 32) {
			t.Fatalf("ValidateBasic(seed %d bytes, units %d, commitment %d bytes) = %v", len(seed), units, len(expected), err)
		}
	})
}
