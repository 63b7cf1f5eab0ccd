package types

import (
	"encoding/binary"

	errorsmod "cosmossdk.io/errors"
)

// SampleEncodingVersion is the first byte of every canonical sample.
const SampleEncodingVersion = 1

// MaxGPUUUIDLength bounds a sample's GPU UUID (NVML's are 40 bytes).
const MaxGPUUUIDLength = 128

// sampleFixedLen is the encoding's size without the UUID bytes.
const sampleFixedLen = 1 + 2 + 8 + 4 + 8 + 8 + 4 + 4 + 4 + 4 + 4

// EncodeSample returns the canonical bytes of a sample, the Merkle leaf's
// content. Protobuf is not canonical (field order, defaults, unknown
// fields), so the tree commits to this fixed layout instead, all integers
// big-endian:
//
//	version u8 (=1) | len(gpu_uuid) u16 | gpu_uuid | timestamp_ms i64 |
//	util_bps u32 | mem_used_mib u64 | energy_mj u64 | power_mw u32 |
//	temp_c u32 | sm_clock_mhz u32 | procs u32 | xid_errors u32
//
// Any implementation that writes these bytes gets the same leaves and root
// (testdata/proof_vectors.json holds vectors to check against).
func EncodeSample(s Sample) ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	buf := make([]byte, 0, sampleFixedLen+len(s.GpuUuid))
	buf = append(buf, SampleEncodingVersion)
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(s.GpuUuid)))
	buf = append(buf, s.GpuUuid...)
	buf = binary.BigEndian.AppendUint64(buf, uint64(s.TimestampMs))
	buf = binary.BigEndian.AppendUint32(buf, s.UtilBps)
	buf = binary.BigEndian.AppendUint64(buf, s.MemUsedMib)
	buf = binary.BigEndian.AppendUint64(buf, s.EnergyMj)
	buf = binary.BigEndian.AppendUint32(buf, s.PowerMw)
	buf = binary.BigEndian.AppendUint32(buf, s.TempC)
	buf = binary.BigEndian.AppendUint32(buf, s.SmClockMhz)
	buf = binary.BigEndian.AppendUint32(buf, s.Procs)
	buf = binary.BigEndian.AppendUint32(buf, s.XidErrors)
	return buf, nil
}

// DecodeSample parses canonical sample bytes. It accepts exactly what
// EncodeSample writes: a known version, no trailing bytes, a valid sample.
func DecodeSample(b []byte) (Sample, error) {
	var s Sample
	if len(b) < sampleFixedLen {
		return s, errorsmod.Wrapf(ErrInvalidSample, "%d bytes, at least %d", len(b), sampleFixedLen)
	}
	if b[0] != SampleEncodingVersion {
		return s, errorsmod.Wrapf(ErrInvalidSample, "encoding version %d, want %d", b[0], SampleEncodingVersion)
	}
	n := int(binary.BigEndian.Uint16(b[1:3]))
	if len(b) != sampleFixedLen+n {
		return s, errorsmod.Wrapf(ErrInvalidSample, "%d bytes for a %d-byte uuid, want %d", len(b), n, sampleFixedLen+n)
	}
	s.GpuUuid = string(b[3 : 3+n])
	r := b[3+n:]
	u32 := func() uint32 { v := binary.BigEndian.Uint32(r); r = r[4:]; return v }
	u64 := func() uint64 { v := binary.BigEndian.Uint64(r); r = r[8:]; return v }
	s.TimestampMs = int64(u64())
	s.UtilBps = u32()
	s.MemUsedMib = u64()
	s.EnergyMj = u64()
	s.PowerMw = u32()
	s.TempC = u32()
	s.SmClockMhz = u32()
	s.Procs = u32()
	s.XidErrors = u32()
	if err := s.Validate(); err != nil {
		return Sample{}, err
	}
	return s, nil
}

// Validate checks a sample's own fields.
func (s Sample) Validate() error {
	if s.GpuUuid == "" || len(s.GpuUuid) > MaxGPUUUIDLength {
		return errorsmod.Wrapf(ErrInvalidSample, "gpu uuid must be 1..%d bytes", MaxGPUUUIDLength)
	}
	if s.TimestampMs < 0 {
		return errorsmod.Wrapf(ErrInvalidSample, "timestamp %d before 1970", s.TimestampMs)
	}
	if s.UtilBps > 10_000 {
		return errorsmod.Wrapf(ErrInvalidSample, "utilisation %d bps above 10000", s.UtilBps)
	}
	return nil
}

// LeafHash is the Merkle leaf of a sample: sha256(0x00 ‖ canonical bytes).
func (s Sample) LeafHash() ([]byte, error) {
	b, err := EncodeSample(s)
	if err != nil {
		return nil, err
	}
	return leafHash(b), nil
}
