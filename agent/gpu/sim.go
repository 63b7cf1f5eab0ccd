package gpu

import (
	"context"
	"fmt"
	"log/slog"
	"math/bits"
	"slices"
	"sync"
	"time"
)

// SimConfig describes a set of identical simulated GPUs. A zero Model,
// MemoryMiB, IdleW, MaxW or Clock takes the H100 SXM default below.
type SimConfig struct {
	// Model is the name the GPUs report (default "NVIDIA H100 80GB HBM3").
	Model string
	// Count is how many GPUs there are, 1..255 (one PCI bus each).
	Count int
	// Seed fixes the UUIDs and every telemetry value.
	Seed int64
	// MemoryMiB is each GPU's memory (default 81559, an H100's).
	MemoryMiB uint64
	// IdleW and MaxW bound the power draw (defaults 70 W and 700 W).
	IdleW, MaxW uint64
	// Clock stamps readings and drives the energy counter (default time.Now).
	Clock func() time.Time
	// StateFile, when set, keeps the GPUs' energy counters across restarts
	// of the agent, as a real GPU's counter runs on while the agent is
	// away: a restarted Sim resumes from the last value it reported plus
	// the idle draw since, so the counter never goes back (an epoch that
	// spans an agent restart stays provable).
	StateFile string
	// ControlFile, when set, lets a demo or a test heat a GPU from outside
	// the agent: a JSON file {"<uuid>": {"temp_c": 95}} applied before each
	// tick's reads (AttachJobs). A real GPU has no such knob.
	ControlFile string
	// Log receives what the sim cannot act on (a broken control file);
	// nil discards it.
	Log *slog.Logger
}

// Sim defaults, as an H100 80GB HBM3 SXM reports them.
const (
	DefaultSimModel     = "NVIDIA H100 80GB HBM3"
	DefaultSimMemoryMiB = 81559
	DefaultSimIdleW     = 70
	DefaultSimMaxW      = 700
)

// Stack versions the simulated GPUs report (a current datacenter driver).
const (
	simDriver = "550.54.15"
	simVBIOS  = "96.00.89.00.01"
	simCUDA   = "12.4"
)

// maxSimW bounds MaxW so the energy arithmetic cannot overflow.
const maxSimW = 100_000

// Sim is a deterministic simulated GPU backend, for tests and machines
// without a GPU. A GPU with attached processes is busy, otherwise idle.
type Sim struct {
	cfg SimConfig

	mu     sync.Mutex
	gpus   []*simGPU
	byUUID map[string]*simGPU

	// jobsMu serialises AttachJobs; attached are the processes it put on
	// GPUs, by lease.
	jobsMu   sync.Mutex
	attached map[uint64]map[uint32][]string
}

var _ Backend = (*Sim)(nil)

// simGPU is one simulated GPU's mutable state.
type simGPU struct {
	index int
	info  Info
	pids  map[uint32]struct{}
	// tempC, when non-zero, replaces the simulated temperature.
	tempC uint32
	// xids are injected XID errors not yet reported by a Read.
	xids uint32
	// energyMJ and energyRem (mW·ns short of the next mJ) integrate the
	// power since lastT, so the counter is monotone and matches the power.
	energyMJ  uint64
	energyRem uint64
	lastT     time.Time
}

// NewSim builds cfg.Count simulated GPUs.
func NewSim(cfg SimConfig) (*Sim, error) {
	cfg = withSimDefaults(cfg)
	switch {
	case cfg.Count < 1 || cfg.Count > 255:
		return nil, fmt.Errorf("sim: count %d, want 1..255", cfg.Count)
	case cfg.IdleW == 0 || cfg.IdleW >= cfg.MaxW || cfg.MaxW > maxSimW:
		return nil, fmt.Errorf("sim: power idle %d W, max %d W: want 0 < idle < max <= %d", cfg.IdleW, cfg.MaxW, maxSimW)
	case cfg.MemoryMiB <= idleMemMaxMiB:
		return nil, fmt.Errorf("sim: memory %d MiB, want more than %d", cfg.MemoryMiB, idleMemMaxMiB)
	}
	s := &Sim{cfg: cfg, byUUID: map[string]*simGPU{}, attached: map[uint64]map[uint32][]string{}}
	start := cfg.Clock()
	saved, err := loadSimState(cfg.StateFile)
	if err != nil {
		return nil, err
	}
	for i := range cfg.Count {
		g := &simGPU{
			index: i,
			info: Info{
				UUID:          simUUID(cfg.Seed, i),
				Model:         cfg.Model,
				MemoryMiB:     cfg.MemoryMiB,
				PCIBusID:      fmt.Sprintf("00000000:%02X:00.0", i+1),
				DriverVersion: simDriver,
				VBIOSVersion:  simVBIOS,
				CUDAVersion:   simCUDA,
			},
			pids:     map[uint32]struct{}{},
			energyMJ: simEnergyBaseMJ(cfg.Seed, i),
			lastT:    start,
		}
		if c, ok := saved[g.info.UUID]; ok {
			g.energyMJ = c.EnergyMJ
			if start.After(c.At) {
				g.energyMJ += cfg.IdleW * uint64(start.Sub(c.At)/time.Millisecond) // W × ms = mJ
			}
		}
		s.gpus = append(s.gpus, g)
		s.byUUID[g.info.UUID] = g
	}
	return s, nil
}

// withSimDefaults fills cfg's zero values.
func withSimDefaults(cfg SimConfig) SimConfig {
	if cfg.Model == "" {
		cfg.Model = DefaultSimModel
	}
	if cfg.MemoryMiB == 0 {
		cfg.MemoryMiB = DefaultSimMemoryMiB
	}
	if cfg.IdleW == 0 {
		cfg.IdleW = DefaultSimIdleW
	}
	if cfg.MaxW == 0 {
		cfg.MaxW = DefaultSimMaxW
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return cfg
}

// Name implements Backend.
func (s *Sim) Name() string { return "sim" }

// Devices implements Backend.
func (s *Sim) Devices(ctx context.Context) ([]Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	infos := make([]Info, len(s.gpus))
	for i, g := range s.gpus {
		infos[i] = g.info
	}
	return infos, nil
}

// Read implements Backend.
func (s *Sim) Read(ctx context.Context, uuid string) (Reading, error) {
	if err := ctx.Err(); err != nil {
		return Reading{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.gpu(uuid)
	if err != nil {
		return Reading{}, err
	}
	now := s.cfg.Clock()
	s.accrue(g, now)
	r := simSample(s.cfg, g.index, now, len(g.pids) > 0)
	r.UUID, r.Time, r.EnergyMJ = uuid, now, g.energyMJ
	if err := s.saveState(); err != nil {
		return Reading{}, fmt.Errorf("sim: keep the energy counters: %w", err)
	}
	if g.tempC != 0 {
		r.TempC = g.tempC
	}
	r.PIDs = make([]uint32, 0, len(g.pids))
	for pid := range g.pids {
		r.PIDs = append(r.PIDs, pid)
	}
	slices.Sort(r.PIDs)
	r.XIDErrors, g.xids = g.xids, 0
	return r, nil
}

// Close implements Backend; a Sim holds nothing to release.
func (s *Sim) Close() error { return nil }

// Attach puts process pid on the GPU, making it busy.
func (s *Sim) Attach(uuid string, pid uint32) error {
	return s.setLoad(uuid, pid, true)
}

// Detach takes process pid off the GPU; with none left it is idle.
func (s *Sim) Detach(uuid string, pid uint32) error {
	return s.setLoad(uuid, pid, false)
}

// setLoad changes the GPU's processes, first banking the energy used in
// the old load state so the counter follows what Read reported.
func (s *Sim) setLoad(uuid string, pid uint32, attach bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.gpu(uuid)
	if err != nil {
		return err
	}
	if _, ok := g.pids[pid]; ok == attach {
		if attach {
			return fmt.Errorf("sim: pid %d already attached to %s", pid, uuid)
		}
		return fmt.Errorf("sim: pid %d not attached to %s", pid, uuid)
	}
	s.accrue(g, s.cfg.Clock())
	if attach {
		g.pids[pid] = struct{}{}
	} else {
		delete(g.pids, pid)
	}
	return nil
}

// SetTemperatureOverride makes the GPU report c °C (0 clears it), to
// simulate a thermal limit breach.
func (s *Sim) SetTemperatureOverride(uuid string, c uint32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.gpu(uuid)
	if err != nil {
		return err
	}
	g.tempC = c
	return nil
}

// InjectXID counts one critical XID error on the GPU's next Read.
func (s *Sim) InjectXID(uuid string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.gpu(uuid)
	if err != nil {
		return err
	}
	g.xids++
	return nil
}

// gpu finds a GPU by UUID; s.mu must be held.
func (s *Sim) gpu(uuid string) (*simGPU, error) {
	g, ok := s.byUUID[uuid]
	if !ok {
		return nil, fmt.Errorf("sim: %w %q", ErrUnknownGPU, uuid)
	}
	return g, nil
}

// accrue adds the energy drawn since g.lastT at the power of that moment
// and load state; a clock that steps back adds nothing. s.mu must be held.
func (s *Sim) accrue(g *simGPU, now time.Time) {
	if !now.After(g.lastT) {
		return
	}
	p := simPowerMW(s.cfg, g.index, g.lastT, len(g.pids) > 0)
	// mW × ns = 1e-9 mJ; MaxW <= maxSimW keeps the high word below 1e9.
	hi, lo := bits.Mul64(p, uint64(now.Sub(g.lastT)))
	mj, rem := bits.Div64(hi, lo, 1e9)
	g.energyMJ += mj
	g.energyRem += rem
	if g.energyRem >= 1e9 {
		g.energyMJ++
		g.energyRem -= 1e9
	}
	g.lastT = now
}
