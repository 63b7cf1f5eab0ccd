package audit

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// Shape is the size of one memwalk audit: the table a device must hold and
// the walk it must do over it. The chain derives it from the claimed
// model's published figures (ShapeFor); the provider's answer commits to
// Leaves() lane states.
type Shape struct {
	// TableItems is the number of 64-byte items in the table (at least
	// 90% of the claimed memory).
	TableItems uint32
	// Lanes is the number of independent walks (a power of two).
	Lanes uint32
	// Segments is the number of transcript leaves per lane (a power of two).
	Segments uint32
	// SegmentSteps is the number of table reads in one segment: what the
	// chain recomputes for each sampled leaf.
	SegmentSteps uint32
}

// Bounds on a shape (docs/design.md#audits).
const (
	// TableFraction is the share of the claimed memory the table fills, in
	// basis points: a board with less memory cannot hold it.
	TableFractionBps = 9000
	// ReadsPerItem is how many walk reads the shape makes per table item.
	// With Parents cache reads per derived item, a device holding half the
	// table pays ReadsPerItem/2 derivations per item held, which is what
	// makes it miss the deadline (docs/design.md#audits).
	ReadsPerItem = 256
	// BoardLanes and BoardSegments shape a real board's transcript: 2^20
	// walks (several per GPU thread slot on any current board) of 64
	// segments, 2^26 leaves (2 GiB of states on the provider's host).
	BoardLanes    = 1 << 20
	BoardSegments = 64
	// MaxLeavesLog2 bounds a transcript at 2^28 leaves (Merkle paths of 28).
	MaxLeavesLog2 = 28
	// MaxSegmentSteps bounds the chain's work per sampled leaf.
	MaxSegmentSteps = 1 << 16
	// MinTableItems keeps a table at least as large as the cache.
	MinTableItems = CacheItems
)

// Leaves is the number of transcript leaves, Lanes × Segments.
func (s Shape) Leaves() uint64 { return uint64(s.Lanes) * uint64(s.Segments) }

// Reads is the number of table reads the whole walk makes.
func (s Shape) Reads() uint64 { return s.Leaves() * uint64(s.SegmentSteps) }

// TableBytes is the table's size in bytes.
func (s Shape) TableBytes() uint64 { return uint64(s.TableItems) * ItemBytes }

// Validate checks a shape's bounds.
func (s Shape) Validate() error {
	pow2 := func(v uint32) bool { return v != 0 && v&(v-1) == 0 }
	switch {
	case s.TableItems < MinTableItems:
		return fmt.Errorf("table of %d items is below the least %d", s.TableItems, MinTableItems)
	case !pow2(s.Lanes) || !pow2(s.Segments):
		return fmt.Errorf("lanes %d and segments %d must be powers of two", s.Lanes, s.Segments)
	case bits.Len64(s.Leaves())-1 > MaxLeavesLog2:
		return fmt.Errorf("%d leaves exceed 2^%d", s.Leaves(), MaxLeavesLog2)
	case s.SegmentSteps == 0 || s.SegmentSteps > MaxSegmentSteps:
		return fmt.Errorf("segment steps %d outside [1, %d]", s.SegmentSteps, MaxSegmentSteps)
	case uint64(s.Segments)*uint64(s.SegmentSteps) > math.MaxUint32:
		return fmt.Errorf("a lane of %d×%d steps overflows the 32-bit step counter", s.Segments, s.SegmentSteps)
	}
	return nil
}

// ShapeFor derives a board's audit from its memory in MiB (as NVML reports
// it): a table of 90% of it, ReadsPerItem reads per item spread over
// BoardLanes × BoardSegments leaves. Small memories (simulated models on
// development chains) get fewer lanes so each leaf still covers at least
// 64 reads.
func ShapeFor(memoryMiB uint64) (Shape, error) {
	if memoryMiB > math.MaxUint64/(1<<20)/TableFractionBps {
		return Shape{}, fmt.Errorf("%d MiB is beyond memwalk/v1's 2^32-item table", memoryMiB)
	}
	// At least TableFractionBps of the memory: rounded up.
	items := (memoryMiB*(1<<20)*TableFractionBps + 10_000*ItemBytes - 1) / (10_000 * ItemBytes)
	if items > math.MaxUint32 {
		return Shape{}, fmt.Errorf("%d MiB is beyond memwalk/v1's 2^32-item table", memoryMiB)
	}
	s := Shape{TableItems: uint32(items), Lanes: BoardLanes, Segments: BoardSegments}
	const minSteps = 64
	for s.Lanes > 1 && uint64(s.TableItems)*ReadsPerItem/s.Leaves() < minSteps {
		s.Lanes /= 2
	}
	steps := (uint64(s.TableItems)*ReadsPerItem + s.Leaves() - 1) / s.Leaves()
	if steps > MaxSegmentSteps {
		return Shape{}, fmt.Errorf("%d MiB needs %d steps per segment, above %d", memoryMiB, steps, MaxSegmentSteps)
	}
	s.SegmentSteps = uint32(steps)
	return s, s.Validate()
}

// Timing is what an audit of a shape costs a board, from its published
// memory bandwidth (docs/design.md#audits shows the arithmetic per model),
// in whole milliseconds rounded up: the chain sets deadlines from it, so
// it is integer arithmetic.
type Timing struct {
	// BuildMs is building the table: TableItems × Parents cache reads of
	// 64 bytes, served from L2, taken at no more than the board's memory
	// bandwidth.
	BuildMs uint64
	// WalkMs is the walk: Reads() random 64-byte reads at
	// RandomReadEfficiencyBps of the memory bandwidth.
	WalkMs uint64
}

// RandomReadEfficiencyBps is the share of peak memory bandwidth the walk's
// dependent random 64-byte reads are assumed to reach. Vendors publish
// only peak bandwidth; a quarter of it is conservative (an honest board
// finishes early rather than late), and `make gpu-smoke` measures it on a
// real board so the model table can be calibrated.
const RandomReadEfficiencyBps = 2500

// Ms is the whole expected time in milliseconds.
func (t Timing) Ms() uint64 { return t.BuildMs + t.WalkMs }

// TimingFor is the expected time of shape s on a board with bandwidthGBps
// (10^9 bytes/s) of peak memory bandwidth; 0 bandwidth gives 0.
//
//	build ms = ⌈TableItems × Parents × 64 × 1000 / (bandwidth × 10^9)⌉
//	walk ms  = ⌈Reads × 64 × 1000 × 10^4 / (bandwidth × 10^9 × efficiency bps)⌉
func TimingFor(s Shape, bandwidthGBps uint64) Timing {
	if bandwidthGBps == 0 {
		return Timing{}
	}
	bytesPerMs := new(big.Int).Mul(new(big.Int).SetUint64(bandwidthGBps), big.NewInt(1_000_000))
	build := new(big.Int).Mul(new(big.Int).SetUint64(uint64(s.TableItems)), big.NewInt(Parents*ItemBytes))
	walk := new(big.Int).Mul(new(big.Int).SetUint64(s.Reads()), big.NewInt(ItemBytes*10_000))
	walkPerMs := new(big.Int).Mul(bytesPerMs, big.NewInt(RandomReadEfficiencyBps))
	return Timing{BuildMs: ceilDiv(build, bytesPerMs), WalkMs: ceilDiv(walk, walkPerMs)}
}

// ceilDiv is ⌈a / b⌉ for positive b, saturating at 2^64 − 1.
func ceilDiv(a, b *big.Int) uint64 {
	q, r := new(big.Int).QuoRem(a, b, new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsUint64() {
		return math.MaxUint64
	}
	return q.Uint64()
}
