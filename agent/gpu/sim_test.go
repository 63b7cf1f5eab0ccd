package gpu

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeClock is a settable clock for the Sim.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newTestSim(t *testing.T, seed int64, count int) (*Sim, *fakeClock) {
	t.Helper()
	c := newFakeClock()
	s, err := NewSim(SimConfig{Count: count, Seed: seed, Clock: c.now})
	require.NoError(t, err)
	return s, c
}

func simRead(t *testing.T, s *Sim, uuid string) Reading {
	t.Helper()
	r, err := s.Read(context.Background(), uuid)
	require.NoError(t, err)
	return r
}

func TestSimDevices(t *testing.T) {
	s, _ := newTestSim(t, 1, 2)
	require.Equal(t, "sim", s.Name())
	got, err := s.Devices(context.Background())
	require.NoError(t, err)
	// The identities are registered on chain: a change here re-registers every simulated provider.
	require.Equal(t, []Info{
		{UUID: "GPU-103477a4-14a3-5501-36a9-b52abe29eba8", Model: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559,
			PCIBusID: "00000000:01:00.0", DriverVersion: "550.54.15", VBIOSVersion: "96.00.89.00.01", CUDAVersion: "12.4"},
		{UUID: "GPU-49082804-99d1-217e-8aa6-9b1c1be5bca1", Model: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559,
			PCIBusID: "00000000:02:00.0", DriverVersion: "550.54.15", VBIOSVersion: "96.00.89.00.01", CUDAVersion: "12.4"},
	}, got)

	s2, _ := newTestSim(t, 2, 64)
	devs, err := s2.Devices(context.Background())
	require.NoError(t, err)
	require.Len(t, devs, 64)
	seen := map[string]bool{}
	uuidRE := regexp.MustCompile(`^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	for _, d := range devs {
		require.Regexp(t, uuidRE, d.UUID)
		require.False(t, seen[d.UUID], "duplicate %s", d.UUID)
		seen[d.UUID] = true
	}
	require.Equal(t, "00000000:40:00.0", devs[63].PCIBusID)
}

func TestNewSimConfig(t *testing.T) {
	cases := []struct {
		name   string
		cfg    SimConfig
		expErr string
	}{
		{"zero count", SimConfig{}, "sim: count 0, want 1..255"},
		{"too many", SimConfig{Count: 256}, "sim: count 256, want 1..255"},
		{"idle above max", SimConfig{Count: 1, IdleW: 800}, "sim: power idle 800 W, max 700 W: want 0 < idle < max <= 100000"},
		{"absurd max", SimConfig{Count: 1, MaxW: 100_001}, "sim: power idle 70 W, max 100001 W: want 0 < idle < max <= 100000"},
		{"memory below idle use", SimConfig{Count: 1, MemoryMiB: 510}, "sim: memory 510 MiB, want more than 510"},
		{"custom", SimConfig{Count: 1, Model: "NVIDIA H200", MemoryMiB: 143771, IdleW: 75, MaxW: 700}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSim(tc.cfg)
			if tc.expErr != "" {
				require.EqualError(t, err, tc.expErr)
				require.Nil(t, s)
				return
			}
			require.NoError(t, err)
			devs, err := s.Devices(context.Background())
			require.NoError(t, err)
			require.Equal(t, "NVIDIA H200", devs[0].Model)
			require.Equal(t, uint64(143771), devs[0].MemoryMiB)
		})
	}
}

// scenario drives a Sim through reads, attaches and detaches at fixed
// times and returns every reading.
func scenario(t *testing.T, seed int64) []Reading {
	t.Helper()
	s, c := newTestSim(t, seed, 2)
	devs, err := s.Devices(context.Background())
	require.NoError(t, err)
	var out []Reading
	for step := range 40 {
		switch step {
		case 10:
			require.NoError(t, s.Attach(devs[0].UUID, 100))
		case 30:
			require.NoError(t, s.Detach(devs[0].UUID, 100))
		}
		c.advance(5 * time.Second)
		for _, d := range devs {
			out = append(out, simRead(t, s, d.UUID))
		}
	}
	return out
}

func TestSimDeterminism(t *testing.T) {
	a, b := scenario(t, 7), scenario(t, 7)
	require.Equal(t, a, b, "same seed and clock, same readings")

	other := scenario(t, 8)
	require.NotEqual(t, a[0].UUID, other[0].UUID)
	differ := 0
	for i := range a {
		if a[i].PowerMW != other[i].PowerMW || a[i].TempC != other[i].TempC || a[i].EnergyMJ != other[i].EnergyMJ {
			differ++
		}
	}
	require.Greater(t, differ, len(a)*9/10, "another seed gives other telemetry")
}

func TestSimBusyAndIdleRanges(t *testing.T) {
	s, c := newTestSim(t, 3, 2)
	devs, err := s.Devices(context.Background())
	require.NoError(t, err)
	busy, idle := devs[0].UUID, devs[1].UUID
	require.NoError(t, s.Attach(busy, 300))
	require.NoError(t, s.Attach(busy, 20))

	powers, temps, utils := map[uint32]bool{}, map[uint32]bool{}, map[uint32]bool{}
	for range 1000 {
		c.advance(time.Second)
		b := simRead(t, s, busy)
		require.Equal(t, c.now(), b.Time)
		require.Equal(t, []uint32{20, 300}, b.PIDs, "sorted")
		require.GreaterOrEqual(t, b.UtilBps, uint32(8500))
		require.LessOrEqual(t, b.UtilBps, uint32(9900))
		require.GreaterOrEqual(t, b.PowerMW, uint32(420_000))
		require.LessOrEqual(t, b.PowerMW, uint32(630_000))
		require.GreaterOrEqual(t, b.MemUsedMiB, uint64(81559*60/100))
		require.LessOrEqual(t, b.MemUsedMiB, uint64(81559*90/100))
		require.GreaterOrEqual(t, b.TempC, uint32(55))
		require.LessOrEqual(t, b.TempC, uint32(80))
		require.GreaterOrEqual(t, b.SMClockMHz, uint32(1755))
		require.LessOrEqual(t, b.SMClockMHz, uint32(1980))
		require.Zero(t, (b.SMClockMHz-1755)%15, "clock in 15 MHz steps")
		powers[b.PowerMW], temps[b.TempC], utils[b.UtilBps] = true, true, true

		i := simRead(t, s, idle)
		require.Equal(t, []uint32{}, i.PIDs)
		require.Zero(t, i.UtilBps)
		require.GreaterOrEqual(t, i.PowerMW, uint32(66_500))
		require.LessOrEqual(t, i.PowerMW, uint32(73_500))
		require.GreaterOrEqual(t, i.MemUsedMiB, uint64(490))
		require.LessOrEqual(t, i.MemUsedMiB, uint64(510))
		require.GreaterOrEqual(t, i.TempC, uint32(30))
		require.LessOrEqual(t, i.TempC, uint32(40))
		require.Equal(t, uint32(345), i.SMClockMHz)
	}
	require.Greater(t, len(powers), 500, "power jitters")
	require.Len(t, temps, 26, "every busy temperature occurs")
	require.Greater(t, len(utils), 400, "utilisation jitters")
}

func TestSimEnergy(t *testing.T) {
	const window, step = 600 * time.Second, 5 * time.Second
	cases := []struct {
		name         string
		load         func(s *Sim, uuid string, at time.Duration)
		minMJ, maxMJ uint64
	}{
		{"idle", func(*Sim, string, time.Duration) {}, 70 * 950 * 600, 70 * 1050 * 600},
		{"busy", func(s *Sim, uuid string, at time.Duration) {
			if at == 0 {
				require.NoError(t, s.Attach(uuid, 1))
			}
		}, 700 * 600 * 600, 700 * 900 * 600},
		{"busy for the middle third", func(s *Sim, uuid string, at time.Duration) {
			switch at {
			case 200 * time.Second:
				require.NoError(t, s.Attach(uuid, 1))
			case 400 * time.Second:
				require.NoError(t, s.Detach(uuid, 1))
			}
		}, 70*950*400 + 700*600*200, 70*1050*400 + 700*900*200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, c := newTestSim(t, 11, 1)
			uuid := s.gpus[0].info.UUID
			first := simRead(t, s, uuid)
			require.Equal(t, simEnergyBaseMJ(11, 0), first.EnergyMJ, "no time has passed")
			prev := first
			for at := time.Duration(0); at < window; at += step {
				tc.load(s, uuid, at)
				c.advance(step)
				r := simRead(t, s, uuid)
				require.Greater(t, r.EnergyMJ, prev.EnergyMJ, "monotone")
				if len(r.PIDs) == len(prev.PIDs) {
					// Energy integrates the power the previous reading reported.
					require.Equal(t, uint64(prev.PowerMW)*5, r.EnergyMJ-prev.EnergyMJ)
				}
				prev = r
			}
			used := prev.EnergyMJ - first.EnergyMJ
			require.GreaterOrEqual(t, used, tc.minMJ)
			require.LessOrEqual(t, used, tc.maxMJ)
			// What x/settlement accepts: 0.5 × idle × window .. 1.1 × max × window.
			require.GreaterOrEqual(t, used, uint64(70*500*600))
			require.LessOrEqual(t, used, uint64(700*1100*600))
		})
	}
}

func TestSimEnergySubSecondAndClockSteps(t *testing.T) {
	s, c := newTestSim(t, 5, 1)
	uuid := s.gpus[0].info.UUID
	r0 := simRead(t, s, uuid)
	// Power is constant within a second, so 4 reads 250 ms apart add
	// exactly one second of it, remainders carried and not lost.
	for range 4 {
		c.advance(250 * time.Millisecond)
		simRead(t, s, uuid)
	}
	r1 := simRead(t, s, uuid)
	require.Equal(t, uint64(r0.PowerMW), r1.EnergyMJ-r0.EnergyMJ)

	c.advance(-time.Hour)
	back := simRead(t, s, uuid)
	require.Equal(t, r1.EnergyMJ, back.EnergyMJ, "a clock stepping back adds nothing")
}

func TestSimLoadErrors(t *testing.T) {
	s, _ := newTestSim(t, 1, 1)
	uuid := s.gpus[0].info.UUID
	require.NoError(t, s.Attach(uuid, 7))
	cases := []struct {
		name    string
		op      func() error
		unknown bool
		expErr  string
	}{
		{"attach unknown GPU", func() error { return s.Attach("GPU-x", 1) }, true, `sim: unknown GPU "GPU-x"`},
		{"detach unknown GPU", func() error { return s.Detach("GPU-x", 1) }, true, `sim: unknown GPU "GPU-x"`},
		{"attach twice", func() error { return s.Attach(uuid, 7) }, false, "sim: pid 7 already attached to " + uuid},
		{"detach not attached", func() error { return s.Detach(uuid, 8) }, false, "sim: pid 8 not attached to " + uuid},
		{"override unknown GPU", func() error { return s.SetTemperatureOverride("GPU-x", 90) }, true, `sim: unknown GPU "GPU-x"`},
		{"inject into unknown GPU", func() error { return s.InjectXID("GPU-x") }, true, `sim: unknown GPU "GPU-x"`},
		{"read unknown GPU", func() error { _, err := s.Read(context.Background(), "GPU-x"); return err }, true, `sim: unknown GPU "GPU-x"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.op()
			require.EqualError(t, err, tc.expErr)
			if tc.unknown {
				require.ErrorIs(t, err, ErrUnknownGPU)
			}
		})
	}
	require.Equal(t, []uint32{7}, simRead(t, s, uuid).PIDs, "failed calls changed nothing")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Read(ctx, uuid)
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.Devices(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, s.Close())
}

func TestSimTemperatureOverride(t *testing.T) {
	s, c := newTestSim(t, 9, 2)
	twin, twinClock := newTestSim(t, 9, 2)
	uuid := s.gpus[1].info.UUID
	require.NoError(t, s.SetTemperatureOverride(uuid, 95))
	c.advance(time.Second)
	twinClock.advance(time.Second)
	require.Equal(t, uint32(95), simRead(t, s, uuid).TempC)
	require.NotEqual(t, uint32(95), simRead(t, s, s.gpus[0].info.UUID).TempC, "only that GPU")

	require.NoError(t, s.SetTemperatureOverride(uuid, 0))
	got, want := simRead(t, s, uuid), simRead(t, twin, uuid)
	require.Equal(t, want.TempC, got.TempC, "cleared: back to the simulated temperature")
	require.LessOrEqual(t, got.TempC, uint32(40))
}

func TestSimInjectXID(t *testing.T) {
	s, _ := newTestSim(t, 1, 2)
	a, b := s.gpus[0].info.UUID, s.gpus[1].info.UUID
	require.NoError(t, s.InjectXID(a))
	require.NoError(t, s.InjectXID(a))
	require.Equal(t, uint32(0), simRead(t, s, b).XIDErrors)
	require.Equal(t, uint32(2), simRead(t, s, a).XIDErrors)
	require.Equal(t, uint32(0), simRead(t, s, a).XIDErrors, "counted once")
}

func TestSimConcurrent(t *testing.T) {
	s, c := newTestSim(t, 1, 4)
	var wg sync.WaitGroup
	for i := range 4 {
		uuid := s.gpus[i].info.UUID
		wg.Go(func() {
			for k := range 50 {
				_ = s.Attach(uuid, uint32(k))
				_, _ = s.Read(context.Background(), uuid)
				_ = s.InjectXID(uuid)
				c.advance(time.Millisecond)
			}
		})
	}
	wg.Wait()
	for i := range 4 {
		r := simRead(t, s, s.gpus[i].info.UUID)
		require.Len(t, r.PIDs, 50)
		require.Equal(t, uint32(1), r.XIDErrors, "the last injection is reported once")
	}
}

// A restarted agent makes a new Sim: with a state file its counter goes on
// from the last value reported plus the idle draw while it was away, never
// back, however busy the GPU was (else the epoch spanning the restart could
// not be proven).
func TestSimEnergyKeptAcrossRestarts(t *testing.T) {
	c := newFakeClock()
	state := filepath.Join(t.TempDir(), "sim.json")
	cfg := SimConfig{Count: 2, Seed: 5, Clock: c.now, StateFile: state}
	old, err := NewSim(cfg)
	require.NoError(t, err)
	uuid := old.gpus[0].info.UUID
	require.NoError(t, old.Attach(uuid, 1)) // busy: drawing near the maximum
	var last Reading
	for i := 0; i < 120; i++ {
		c.advance(time.Second)
		last = simRead(t, old, uuid)
	}
	c.advance(3 * time.Second) // down for 3 s
	restarted, err := NewSim(cfg)
	require.NoError(t, err)
	r := simRead(t, restarted, uuid)
	require.Equal(t, last.EnergyMJ+70*3000, r.EnergyMJ, "last value + 70 W × 3 s")

	// Without a state file a new Sim starts from its seeded value.
	fresh, err := NewSim(SimConfig{Count: 2, Seed: 5, Clock: c.now})
	require.NoError(t, err)
	require.Equal(t, simEnergyBaseMJ(5, 0), simRead(t, fresh, uuid).EnergyMJ)

	require.NoError(t, os.WriteFile(state, []byte("{"), 0o600))
	_, err = NewSim(cfg)
	require.ErrorContains(t, err, "sim state")
}
