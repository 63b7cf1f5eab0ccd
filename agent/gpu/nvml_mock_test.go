//go:build cgo

package gpu

import (
	"fmt"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/stretchr/testify/require"
)

// dgxBuses are a DGX H100's GPU PCI buses, in NVML index order.
var dgxBuses = []uint32{0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB}

// mockUUID is the fixed UUID the tests give mock GPU i (the mock's own are random).
func mockUUID(i int) string { return fmt.Sprintf("GPU-00000000-0000-0000-0000-%012d", i) }

// testVBIOS is what the tests make GetVbiosVersion report.
const testVBIOS = "96.00.74.00.0C"

// prepareMock fixes the ready mock's random UUIDs and fills what it
// leaves out of identity (PCI bus ids as a real driver gives them, VBIOS).
func prepareMock(t *testing.T, s *server.Server) []*server.Device {
	t.Helper()
	require.Len(t, s.Devices, len(dgxBuses))
	devs := make([]*server.Device, len(s.Devices))
	for i, d := range s.Devices {
		dev, ok := d.(*server.Device)
		require.True(t, ok)
		dev.UUID = mockUUID(i)
		pci := nvml.PciInfo{Bus: dgxBuses[i], PciDeviceId: dev.Config.PciDeviceId}
		putCString(pci.BusId[:], fmt.Sprintf("00000000:%02X:00.0", dgxBuses[i]))
		putCString(pci.BusIdLegacy[:], fmt.Sprintf("0000:%02X:00.0", dgxBuses[i]))
		dev.GetPciInfoFunc = func() (nvml.PciInfo, nvml.Return) { return pci, nvml.SUCCESS }
		dev.GetVbiosVersionFunc = func() (string, nvml.Return) { return testVBIOS, nvml.SUCCESS }
		devs[i] = dev
	}
	return devs
}

// putCString writes s into a C char array as NVML does (NUL-terminated).
func putCString(dst []int8, s string) {
	for i := range len(s) {
		dst[i] = int8(s[i])
	}
	dst[len(s)] = 0
}

// telemetry is what setTelemetry makes one mock GPU report.
type telemetry struct {
	utilPct   uint32
	usedBytes uint64
	energyMJ  uint64
	powerMW   uint32
	tempC     uint32
	smMHz     uint32
	pids      []uint32
}

// setTelemetry installs the telemetry funcs the ready mock leaves unset;
// temperature and clock answer only for the sensor and clock Read must ask.
func setTelemetry(dev *server.Device, v telemetry) {
	dev.MemoryInfo.Used = v.usedBytes
	dev.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
		return nvml.Utilization{Gpu: v.utilPct, Memory: 11}, nvml.SUCCESS
	}
	dev.GetTotalEnergyConsumptionFunc = func() (uint64, nvml.Return) { return v.energyMJ, nvml.SUCCESS }
	dev.GetPowerUsageFunc = func() (uint32, nvml.Return) { return v.powerMW, nvml.SUCCESS }
	dev.GetTemperatureFunc = func(s nvml.TemperatureSensors) (uint32, nvml.Return) {
		if s != nvml.TEMPERATURE_GPU {
			return 0, nvml.ERROR_INVALID_ARGUMENT
		}
		return v.tempC, nvml.SUCCESS
	}
	dev.GetClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
		if c != nvml.CLOCK_SM {
			return 0, nvml.ERROR_INVALID_ARGUMENT
		}
		return v.smMHz, nvml.SUCCESS
	}
	dev.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
		procs := make([]nvml.ProcessInfo, len(v.pids))
		for i, pid := range v.pids {
			procs[i] = nvml.ProcessInfo{Pid: pid, UsedGpuMemory: 1 << 30}
		}
		return procs, nvml.SUCCESS
	}
}
