package audit

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
)

// How the host splits an audit into launches. Each launch is followed by a
// sync and a check of the context, so these bound how long a cancelled
// audit keeps the GPU (a fraction of a second on a current board).
const (
	// threadsPerBlock is the block size of both kernels.
	threadsPerBlock = 256
	// defaultBuildChunk is the table items one memwalk_build launch fills
	// (256 MiB of table, tens of milliseconds).
	defaultBuildChunk = 1 << 22
	// defaultBatchLanes is the lanes on the device at once: every lane of
	// a board's shape (settlementaudit.BoardLanes), several per thread slot
	// of any current GPU, which the walk's dependent reads need to keep
	// the memory busy.
	defaultBatchLanes = 1 << 20
	// defaultLaunchReads is the table reads one memwalk_walk launch aims
	// at (about a third of a second on an H100).
	defaultLaunchReads = 1 << 32
	// maxOutBytes bounds the device's (and the host's) buffer of the
	// states one launch writes.
	maxOutBytes = 256 << 20
)

// GPU runs audits on the audited GPU through a CUDA driver.
type GPU struct {
	Driver Driver
	// Observe, when set, receives each completed audit's phase times.
	Observe func(Timings)

	// Test hooks: zero means the default above.
	buildChunk  uint32
	batchLanes  uint32
	launchReads uint64
}

// Timings is where a GPU audit's time went.
type Timings struct {
	// Setup is opening the device (the PTX JIT), the cache, allocating and
	// uploading.
	Setup time.Duration
	// Build is filling the table (memwalk_build).
	Build time.Duration
	// Walk is the lanes' walk (memwalk_walk), with the states' download.
	Walk time.Duration
}

// Name implements Runner.
func (GPU) Name() string { return "cuda" }

// plan is how one audit is cut into launches.
type plan struct {
	buildChunk  uint32 // table items per build launch
	batchLanes  uint32 // lanes on the device at once
	launchSegs  uint32 // segments per walk launch
	deviceBytes uint64 // all the device memory the audit allocates
}

func (g GPU) plan(s settlementaudit.Shape) plan {
	p := plan{buildChunk: g.buildChunk, batchLanes: g.batchLanes}
	if p.buildChunk == 0 {
		p.buildChunk = defaultBuildChunk
	}
	if p.batchLanes == 0 {
		p.batchLanes = defaultBatchLanes
	}
	p.batchLanes = min(p.batchLanes, s.Lanes)
	reads := g.launchReads
	if reads == 0 {
		reads = defaultLaunchReads
	}
	segs := reads / (uint64(p.batchLanes) * uint64(s.SegmentSteps))
	segs = min(segs, maxOutBytes/(uint64(p.batchLanes)*settlementaudit.StateBytes), uint64(s.Segments))
	p.launchSegs = uint32(max(segs, 1))
	p.deviceBytes = s.TableBytes() + settlementaudit.CacheItems*settlementaudit.ItemBytes +
		uint64(p.batchLanes)*settlementaudit.StateBytes*(1+uint64(p.launchSegs))
	return p
}

// Run implements Runner. The host expands the seed's cache and each lane's
// start state (as the reference does); memwalk_build fills the table on
// the device, then memwalk_walk runs batches of lanes a few segments per
// launch, the states staying on the device between launches, and the host
// writes each segment's end state into the transcript while the next
// launch runs.
func (g GPU) Run(ctx context.Context, uuid string, seed []byte, shape settlementaudit.Shape) (st settlementaudit.States, err error) {
	if err := shape.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	cache, err := settlementaudit.NewCache(seed)
	if err != nil {
		return nil, err
	}
	p := g.plan(shape)

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, err := g.Driver.Open(uuid, memwalkPTX, buildKernel, walkKernel)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, s.Close()) }()

	free, total, err := s.MemInfo()
	if err != nil {
		return nil, err
	}
	if p.deviceBytes > free {
		return nil, fmt.Errorf("%w: %s needs %d bytes, %d of %d free", ErrNoMemory, uuid, p.deviceBytes, free, total)
	}
	table, err := s.Alloc(uint64(shape.TableItems) * settlementaudit.ItemWords)
	if err != nil {
		return nil, fmt.Errorf("table of %d bytes: %w", shape.TableBytes(), err)
	}
	words := cache.Words()
	dcache, err := s.Alloc(uint64(len(words)))
	if err != nil {
		return nil, err
	}
	states, err := s.Alloc(uint64(p.batchLanes) * settlementaudit.StateWords)
	if err != nil {
		return nil, err
	}
	out, err := s.Alloc(uint64(p.batchLanes) * uint64(p.launchSegs) * settlementaudit.StateWords)
	if err != nil {
		return nil, err
	}
	if err := s.Upload(dcache, words); err != nil {
		return nil, err
	}

	var t Timings
	built := time.Now()
	t.Setup = built.Sub(start)
	if err := g.build(ctx, s, p, table, dcache, shape.TableItems); err != nil {
		return nil, err
	}
	walked := time.Now()
	t.Build = walked.Sub(built)
	if st, err = g.walk(ctx, s, p, table, states, out, seed, shape); err != nil {
		return nil, err
	}
	t.Walk = time.Since(walked)
	if g.Observe != nil {
		g.Observe(t)
	}
	return st, nil
}

// build fills the table, one launch per chunk of items.
func (GPU) build(ctx context.Context, s Session, p plan, table, cache Ptr, items uint32) error {
	for first := uint32(0); first < items; {
		end := first + min(p.buildChunk, items-first)
		if err := s.Launch(buildKernel, blocks(end-first), threadsPerBlock,
			PtrArg(table), PtrArg(cache), U32Arg(first), U32Arg(end)); err != nil {
			return fmt.Errorf("building items [%d, %d): %w", first, end, err)
		}
		if err := s.Sync(); err != nil {
			return fmt.Errorf("building items [%d, %d): %w", first, end, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		first = end
	}
	return nil
}

// launchOut is one walk launch's states as downloaded: count lanes from
// lane, segs segments from seg each, lane-major.
type launchOut struct {
	lane, count, seg, segs uint32
	words                  []uint32
}

// walk runs every lane and returns the transcript.
func (GPU) walk(ctx context.Context, s Session, p plan, table, states, out Ptr, seed []byte, shape settlementaudit.Shape) (settlementaudit.States, error) {
	st := make(settlementaudit.States, shape.Leaves()*settlementaudit.StateBytes)
	host := make([]uint32, uint64(p.batchLanes)*uint64(p.launchSegs)*settlementaudit.StateWords)
	var pending *launchOut
	for lane := uint32(0); lane < shape.Lanes; lane += p.batchLanes {
		count := min(p.batchLanes, shape.Lanes-lane)
		if err := s.Upload(states, laneStarts(seed, lane, count)); err != nil {
			return nil, err
		}
		for seg := uint32(0); seg < shape.Segments; seg += p.launchSegs {
			segs := min(p.launchSegs, shape.Segments-seg)
			where := fmt.Sprintf("walking lanes [%d, %d), segments [%d, %d)", lane, lane+count, seg, seg+segs)
			if err := s.Launch(walkKernel, blocks(count), threadsPerBlock,
				PtrArg(table), PtrArg(states), PtrArg(out), U32Arg(shape.TableItems),
				U32Arg(count), U32Arg(seg), U32Arg(segs), U32Arg(shape.SegmentSteps)); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			// The previous launch's states go into the transcript while
			// this one runs; host is free again before the download below.
			if pending != nil {
				scatter(st, shape, pending)
			}
			if err := s.Sync(); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			lo := launchOut{lane: lane, count: count, seg: seg, segs: segs,
				words: host[:uint64(count)*uint64(segs)*settlementaudit.StateWords]}
			if err := s.Download(lo.words, out); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			pending = &lo
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	if pending != nil {
		scatter(st, shape, pending)
	}
	return st, nil
}

// scatter writes a launch's states into their transcript leaves as
// big-endian words.
func scatter(st settlementaudit.States, shape settlementaudit.Shape, o *launchOut) {
	const w = settlementaudit.StateWords
	for i := range o.count {
		for k := range o.segs {
			leaf := st.Leaf(shape.LeafIndex(o.lane+i, o.seg+k))
			src := o.words[(uint64(i)*uint64(o.segs)+uint64(k))*w:][:w]
			for j, v := range src {
				binary.BigEndian.PutUint32(leaf[4*j:], v)
			}
		}
	}
}

// laneStarts is lanes [first, first+count)'s start states, 8 words each,
// computed on all CPUs (2^20 hashes for a board's shape).
func laneStarts(seed []byte, first, count uint32) []uint32 {
	out := make([]uint32, uint64(count)*settlementaudit.StateWords)
	workers := uint32(min(runtime.GOMAXPROCS(0), int(count)))
	per := (count + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := uint32(0); lo < count; lo += per {
		hi := lo + min(per, count-lo)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				s := settlementaudit.LaneStart(seed, first+i)
				copy(out[uint64(i)*settlementaudit.StateWords:], s[:])
			}
		}()
	}
	wg.Wait()
	return out
}

// blocks is the grid covering n threads.
func blocks(n uint32) uint32 { return uint32((uint64(n) + threadsPerBlock - 1) / threadsPerBlock) }
