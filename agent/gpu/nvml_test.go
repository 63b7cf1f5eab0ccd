//go:build cgo

package gpu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/stretchr/testify/require"
)

var testNow = time.Date(2026, 3, 1, 12, 0, 5, 0, time.UTC)

func TestNVMLDevices(t *testing.T) {
	cases := []struct {
		name      string
		server    func() *server.Server
		model     string
		memoryMiB uint64
	}{
		{"dgx h100", dgxh100.New, "NVIDIA H100 80GB HBM3", 81920},
		{"dgx h200", dgxh200.New, "NVIDIA H200 141GB HBM3e", 144384},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.server()
			prepareMock(t, s)
			n, err := NewNVML(s)
			require.NoError(t, err)
			defer n.Close()
			require.Equal(t, "nvml", n.Name())

			got, err := n.Devices(context.Background())
			require.NoError(t, err)
			want := make([]Info, 8)
			for i := range want {
				want[i] = Info{
					UUID: mockUUID(i), Model: tc.model, MemoryMiB: tc.memoryMiB,
					PCIBusID:      []string{"00000000:18:00.0", "00000000:2A:00.0", "00000000:3A:00.0", "00000000:5D:00.0", "00000000:9A:00.0", "00000000:AB:00.0", "00000000:BA:00.0", "00000000:DB:00.0"}[i],
					DriverVersion: "550.54.15", VBIOSVersion: testVBIOS, CUDAVersion: "12.4",
				}
			}
			require.Equal(t, want, got)
		})
	}
}

func TestNVMLDevicesErrors(t *testing.T) {
	cases := []struct {
		name    string
		breakIt func(s *server.Server, devs []*server.Device)
		wantMsg string
		wantIs  error
	}{
		{
			name: "ready mock has no VBIOS func",
			breakIt: func(_ *server.Server, devs []*server.Device) {
				devs[0].GetVbiosVersionFunc = nil
			},
			wantMsg: "GPU 0: nvml GetVbiosVersion: not implemented by this binding",
			wantIs:  nvml.ERROR_FUNCTION_NOT_FOUND,
		},
		{
			name: "GPU lost while naming it",
			breakIt: func(_ *server.Server, devs []*server.Device) {
				devs[6].GetNameFunc = func() (string, nvml.Return) { return "", nvml.ERROR_GPU_IS_LOST }
			},
			wantMsg: "GPU 6: nvml GetName: ERROR_GPU_IS_LOST",
			wantIs:  nvml.ERROR_GPU_IS_LOST,
		},
		{
			name: "driver version",
			breakIt: func(s *server.Server, _ []*server.Device) {
				s.SystemGetDriverVersionFunc = func() (string, nvml.Return) { return "", nvml.ERROR_UNINITIALIZED }
			},
			wantMsg: "nvml SystemGetDriverVersion: ERROR_UNINITIALIZED",
			wantIs:  nvml.ERROR_UNINITIALIZED,
		},
		{
			name: "handle by index",
			breakIt: func(s *server.Server, _ []*server.Device) {
				s.DeviceGetHandleByIndexFunc = func(int) (nvml.Device, nvml.Return) { return nil, nvml.ERROR_UNKNOWN }
			},
			wantMsg: "GPU 0: nvml DeviceGetHandleByIndex: ERROR_UNKNOWN",
			wantIs:  nvml.ERROR_UNKNOWN,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := dgxh100.New()
			devs := prepareMock(t, s)
			n, err := NewNVML(s)
			require.NoError(t, err)
			defer n.Close()
			tc.breakIt(s, devs)
			_, err = n.Devices(context.Background())
			require.ErrorIs(t, err, tc.wantIs)
			require.ErrorContains(t, err, tc.wantMsg)
		})
	}
}

func TestNVMLInitFailure(t *testing.T) {
	for _, ret := range []nvml.Return{nvml.ERROR_LIBRARY_NOT_FOUND, nvml.ERROR_DRIVER_NOT_LOADED, nvml.ERROR_NO_PERMISSION} {
		t.Run(ret.Error(), func(t *testing.T) {
			s := dgxh100.New()
			s.InitFunc = func() nvml.Return { return ret }
			n, err := NewNVML(s)
			require.Nil(t, n)
			require.ErrorIs(t, err, ErrUnavailable)
			require.ErrorIs(t, err, ret)
			require.EqualError(t, err, "gpu backend unavailable: nvml Init: "+ret.Error())
		})
	}
	n, err := NewNVML(nil)
	require.Nil(t, n)
	require.ErrorIs(t, err, ErrUnavailable)
}

func TestNVMLRead(t *testing.T) {
	s := dgxh100.New()
	devs := prepareMock(t, s)
	setTelemetry(devs[3], telemetry{
		utilPct: 97, usedBytes: 70_000*mib + 123, energyMJ: 123_456_789_012,
		powerMW: 612_345, tempC: 71, smMHz: 1980, pids: []uint32{4242, 17},
	})
	setTelemetry(devs[4], telemetry{usedBytes: 512 * mib, energyMJ: 5, powerMW: 69_000, tempC: 33, smMHz: 345})
	n, err := NewNVML(s, WithClock(func() time.Time { return testNow }))
	require.NoError(t, err)
	defer n.Close()

	cases := []struct {
		name string
		uuid string
		want Reading
	}{
		{"busy", mockUUID(3), Reading{
			UUID: mockUUID(3), Time: testNow, UtilBps: 9700, MemUsedMiB: 70_000, EnergyMJ: 123_456_789_012,
			PowerMW: 612_345, TempC: 71, SMClockMHz: 1980, PIDs: []uint32{4242, 17},
		}},
		{"idle", mockUUID(4), Reading{
			UUID: mockUUID(4), Time: testNow, MemUsedMiB: 512, EnergyMJ: 5,
			PowerMW: 69_000, TempC: 33, SMClockMHz: 345, PIDs: []uint32{},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := n.Read(context.Background(), tc.uuid)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestNVMLReadErrors(t *testing.T) {
	lost := func() nvml.Return { return nvml.ERROR_GPU_IS_LOST }
	cases := []struct {
		call    string
		breakIt func(d *server.Device)
	}{
		{"GetUtilizationRates", func(d *server.Device) {
			d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) { return nvml.Utilization{}, lost() }
		}},
		{"GetMemoryInfo", func(d *server.Device) {
			d.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) { return nvml.Memory{}, lost() }
		}},
		{"GetTotalEnergyConsumption", func(d *server.Device) {
			d.GetTotalEnergyConsumptionFunc = func() (uint64, nvml.Return) { return 0, lost() }
		}},
		{"GetPowerUsage", func(d *server.Device) {
			d.GetPowerUsageFunc = func() (uint32, nvml.Return) { return 0, lost() }
		}},
		{"GetTemperature", func(d *server.Device) {
			d.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return 0, lost() }
		}},
		{"GetClockInfo", func(d *server.Device) {
			d.GetClockInfoFunc = func(nvml.ClockType) (uint32, nvml.Return) { return 0, lost() }
		}},
		{"GetComputeRunningProcesses", func(d *server.Device) {
			d.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) { return nil, lost() }
		}},
	}
	for _, tc := range cases {
		t.Run(tc.call, func(t *testing.T) {
			s := dgxh100.New()
			devs := prepareMock(t, s)
			setTelemetry(devs[2], telemetry{utilPct: 50})
			tc.breakIt(devs[2])
			n, err := NewNVML(s)
			require.NoError(t, err)
			defer n.Close()
			_, err = n.Read(context.Background(), mockUUID(2))
			require.ErrorIs(t, err, nvml.ERROR_GPU_IS_LOST)
			require.EqualError(t, err, fmt.Sprintf("read %s: nvml %s: ERROR_GPU_IS_LOST", mockUUID(2), tc.call))
		})
	}

	t.Run("telemetry func unset in the ready mock", func(t *testing.T) {
		s := dgxh100.New()
		prepareMock(t, s)
		n, err := NewNVML(s)
		require.NoError(t, err)
		defer n.Close()
		_, err = n.Read(context.Background(), mockUUID(0))
		require.ErrorIs(t, err, nvml.ERROR_FUNCTION_NOT_FOUND)
		require.ErrorContains(t, err, "nvml GetUtilizationRates: not implemented by this binding")
	})
}

func TestNVMLReadUnknownGPU(t *testing.T) {
	cases := []struct {
		name    string
		ret     nvml.Return // what DeviceGetHandleByUUID answers
		unknown bool
		wantMsg string
	}{
		{"mock answers invalid argument", nvml.ERROR_INVALID_ARGUMENT, true,
			`unknown GPU "GPU-nope": nvml DeviceGetHandleByUUID: ERROR_INVALID_ARGUMENT`},
		{"driver answers not found", nvml.ERROR_NOT_FOUND, true,
			`unknown GPU "GPU-nope": nvml DeviceGetHandleByUUID: ERROR_NOT_FOUND`},
		{"other failures are not unknown GPUs", nvml.ERROR_UNKNOWN, false,
			`read GPU-nope: nvml DeviceGetHandleByUUID: ERROR_UNKNOWN`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := dgxh100.New()
			prepareMock(t, s)
			if tc.ret != nvml.ERROR_INVALID_ARGUMENT {
				s.DeviceGetHandleByUUIDFunc = func(string) (nvml.Device, nvml.Return) { return nil, tc.ret }
			}
			n, err := NewNVML(s)
			require.NoError(t, err)
			defer n.Close()
			_, err = n.Read(context.Background(), "GPU-nope")
			require.ErrorIs(t, err, tc.ret)
			require.Equal(t, tc.unknown, errors.Is(err, ErrUnknownGPU))
			require.EqualError(t, err, tc.wantMsg)
		})
	}
}

func TestNVMLCloseAndContext(t *testing.T) {
	s := dgxh100.New()
	devs := prepareMock(t, s)
	setTelemetry(devs[0], telemetry{})
	shutdowns := 0
	s.ShutdownFunc = func() nvml.Return { shutdowns++; return nvml.SUCCESS }
	n, err := NewNVML(s)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = n.Read(ctx, mockUUID(0))
	require.ErrorIs(t, err, context.Canceled)
	_, err = n.Devices(ctx)
	require.ErrorIs(t, err, context.Canceled)

	require.NoError(t, n.Close())
	require.NoError(t, n.Close())
	require.Equal(t, 1, shutdowns)
	_, err = n.Read(context.Background(), mockUUID(0))
	require.ErrorIs(t, err, ErrUnavailable)
	_, err = n.Devices(context.Background())
	require.ErrorIs(t, err, ErrUnavailable)
}

func TestNVMLConcurrentReads(t *testing.T) {
	s := dgxh100.New()
	devs := prepareMock(t, s)
	for i, d := range devs {
		setTelemetry(d, telemetry{utilPct: uint32(i), energyMJ: uint64(i)})
	}
	n, err := NewNVML(s)
	require.NoError(t, err)
	defer n.Close()
	var wg sync.WaitGroup
	errs := make([]error, len(devs)*4)
	for k := range errs {
		wg.Go(func() {
			r, err := n.Read(context.Background(), mockUUID(k%len(devs)))
			if err == nil && r.UtilBps != uint32(k%len(devs))*100 {
				err = fmt.Errorf("GPU %d read util %d", k%len(devs), r.UtilBps)
			}
			errs[k] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
}

func TestHelpers(t *testing.T) {
	t.Run("cudaVersion", func(t *testing.T) {
		for v, want := range map[int]string{12040: "12.4", 11080: "11.8", 12000: "12.0", 13010: "13.1"} {
			require.Equal(t, want, cudaVersion(v), v)
		}
	})
	t.Run("pciBusID", func(t *testing.T) {
		cases := []struct {
			name, busID, legacy, want string
		}{
			{"prefers the full id", "00000000:3B:00.0", "0000:3B:00.0", "00000000:3B:00.0"},
			{"falls back to the legacy id", "", "0000:3B:00.0", "0000:3B:00.0"},
			{"empty when NVML gives neither (ready mock)", "", "", ""},
			{"reads a full array with no NUL", strings.Repeat("0", 24) + ":3B:00.0", "", strings.Repeat("0", 24) + ":3B:00.0"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				var p nvml.PciInfo
				if tc.busID != "" {
					copy(p.BusId[:], toInt8(tc.busID))
				}
				if tc.legacy != "" {
					putCString(p.BusIdLegacy[:], tc.legacy)
				}
				if len(tc.busID) == len(p.BusId) {
					require.NotContains(t, p.BusId, int8(0))
				}
				require.Equal(t, tc.want, pciBusID(p))
			})
		}
	})
}

// toInt8 converts without a terminator, to test a completely full array.
func toInt8(s string) []int8 {
	out := make([]int8, len(s))
	for i := range len(s) {
		out[i] = int8(s[i])
	}
	return out
}
