package audit

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
)

// syncEvery is how many rounds are queued between checks of the context:
// a cancelled audit stops within that many rounds (milliseconds), while the
// launch queue stays full.
const syncEvery = 64

// GPU runs audits on the audited GPU through a CUDA driver.
type GPU struct {
	Driver Driver
}

// Name implements Runner.
func (GPU) Name() string { return "cuda" }

// Run implements Runner: the seed's matrices are expanded and the result
// hashed on the host (as in the reference); every round runs on the GPU.
func (g GPU) Run(ctx context.Context, uuid, workload string, seed []byte, units uint64) (res Result, err error) {
	if workload != settlementaudit.MatMulV1Name {
		return Result{}, fmt.Errorf("%w: %s", ErrUnknownWorkload, workload)
	}
	if len(seed) != settlementaudit.SeedSize || units == 0 {
		return Result{}, fmt.Errorf("audit needs a %d-byte seed and at least one unit", settlementaudit.SeedSize)
	}
	if units > 1<<32-1 {
		// Round numbers are 32-bit on the GPU, as mod 2³² in the spec; no
		// chain deadline allows this many anyway.
		return Result{}, fmt.Errorf("%d units exceed one GPU audit", units)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, err := g.Driver.Open(uuid, matmulPTX, matmulKernel)
	if err != nil {
		return Result{}, err
	}
	defer func() { err = errors.Join(err, s.Close()) }()

	const n = settlementaudit.MatMulDim
	a, b := settlementaudit.MatMulInputs(seed)
	var bufs [3]Ptr
	for i := range bufs {
		if bufs[i], err = s.Alloc(n * n); err != nil {
			return Result{}, err
		}
	}
	m, next, bd := bufs[0], bufs[1], bufs[2]
	if err := s.Upload(m, a); err != nil {
		return Result{}, err
	}
	if err := s.Upload(bd, b); err != nil {
		return Result{}, err
	}
	for r := uint64(1); r <= units; r++ {
		if err := s.Launch(n, n, PtrArg(next), PtrArg(m), PtrArg(bd), U32Arg(uint32(r))); err != nil {
			return Result{}, fmt.Errorf("round %d: %w", r, err)
		}
		m, next = next, m
		if r%syncEvery == 0 {
			if err := s.Sync(); err != nil {
				return Result{}, fmt.Errorf("round %d: %w", r, err)
			}
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
		}
	}
	if err := s.Sync(); err != nil {
		return Result{}, err
	}
	out := make([]uint32, n*n)
	if err := s.Download(out, m); err != nil {
		return Result{}, err
	}
	return settlementaudit.MatMulDigest(units, out), nil
}
