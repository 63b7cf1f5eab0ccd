package gpu

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// The simulated telemetry is a pure function of (seed, GPU index, whole
// second, load state): the same inputs always give the same sample, so
// tests and demo chains can replay it exactly.

// Salts keep each quantity's jitter independent of the others'.
const (
	saltUtil uint64 = iota + 1
	saltPower
	saltMem
	saltTemp
	saltClock
	saltEnergy
)

// Simulated load ranges, from what an H100 shows under training vs idle.
const (
	busyUtilMinBps, busyUtilMaxBps = 8500, 9900
	busyPowerMinPermille           = 600 // of MaxW
	busyPowerMaxPermille           = 900
	busyMemMinPct, busyMemMaxPct   = 60, 90
	busyTempMin, busyTempMax       = 55, 80
	busyClockMinMHz, clockStepMHz  = 1755, 15 // 1755..1980 in the driver's 15 MHz steps
	busyClockSteps                 = 15
	idlePowerMinPermille           = 950 // of IdleW: ±5 %
	idlePowerMaxPermille           = 1050
	idleMemMinMiB, idleMemMaxMiB   = 490, 510
	idleTempMin, idleTempMax       = 30, 40
	idleClockMHz                   = 345
	energyBaseMJ                   = 1_000_000_000 // a counter some days after driver load
)

// simUUID derives a stable NVML-style UUID from the seed and index.
func simUUID(seed int64, index int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "idlegpu-sim/%d/%d", seed, index))
	h := hex.EncodeToString(sum[:16])
	return "GPU-" + h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// jitter hashes its inputs with splitmix64 into a uniform uint64.
func jitter(seed int64, index int, sec int64, salt uint64) uint64 {
	h := splitmix(uint64(seed))
	h = splitmix(h ^ uint64(index))
	h = splitmix(h ^ uint64(sec))
	return splitmix(h ^ salt)
}

// splitmix is the splitmix64 finaliser: cheap, well mixed, deterministic.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// between maps h onto [lo, hi].
func between(h, lo, hi uint64) uint64 { return lo + h%(hi-lo+1) }

// simPowerMW is the power draw at t; energy integrates exactly this.
func simPowerMW(c SimConfig, index int, t time.Time, busy bool) uint64 {
	h := jitter(c.Seed, index, t.Unix(), saltPower)
	if busy {
		return between(h, c.MaxW*busyPowerMinPermille, c.MaxW*busyPowerMaxPermille)
	}
	return between(h, c.IdleW*idlePowerMinPermille, c.IdleW*idlePowerMaxPermille)
}

// simSample fills the instantaneous quantities of a reading at t.
func simSample(c SimConfig, index int, t time.Time, busy bool) Reading {
	sec := t.Unix()
	j := func(salt uint64) uint64 { return jitter(c.Seed, index, sec, salt) }
	r := Reading{PowerMW: uint32(simPowerMW(c, index, t, busy))}
	if busy {
		r.UtilBps = uint32(between(j(saltUtil), busyUtilMinBps, busyUtilMaxBps))
		r.MemUsedMiB = between(j(saltMem), c.MemoryMiB*busyMemMinPct/100, c.MemoryMiB*busyMemMaxPct/100)
		r.TempC = uint32(between(j(saltTemp), busyTempMin, busyTempMax))
		r.SMClockMHz = uint32(busyClockMinMHz + clockStepMHz*between(j(saltClock), 0, busyClockSteps))
		return r
	}
	r.MemUsedMiB = between(j(saltMem), idleMemMinMiB, idleMemMaxMiB)
	r.TempC = uint32(between(j(saltTemp), idleTempMin, idleTempMax))
	r.SMClockMHz = idleClockMHz
	return r
}

// simEnergyBaseMJ is the counter's seeded value when the Sim starts.
func simEnergyBaseMJ(seed int64, index int) uint64 {
	return energyBaseMJ + jitter(seed, index, 0, saltEnergy)%energyBaseMJ
}
