//go:build cgo

package gpu

import (
	"errors"
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// maxXIDDrain bounds one drain so a binding that never reports
// ERROR_TIMEOUT cannot hang a Read; what is left waits for the next one.
const maxXIDDrain = 1024

// xidEvents counts critical XID events per GPU UUID. One event set serves
// every GPU, so a Read of one GPU drains events of all of them and keeps
// the others' counts for their own next Read.
type xidEvents struct {
	set    nvml.EventSet // nil where the driver or binding has no events
	counts map[string]uint32
}

// openXIDEvents subscribes every GPU that supports it to critical XIDs.
// Events are optional: a binding or GPU without them reads zero XIDs.
func openXIDEvents(lib nvml.Interface) (*xidEvents, error) {
	x := &xidEvents{counts: map[string]uint32{}}
	set, err := call("EventSetCreate", lib.EventSetCreate)
	if unsupported(err) || (err == nil && set == nil) {
		return x, nil
	}
	if err != nil {
		return nil, err
	}
	registered, err := registerXID(lib, set)
	if err != nil {
		return nil, errors.Join(err, call0("EventSetFree", set.Free))
	}
	if registered == 0 {
		return x, call0("EventSetFree", set.Free)
	}
	x.set = set
	return x, nil
}

// registerXID registers each GPU on set and says how many accepted.
func registerXID(lib nvml.Interface, set nvml.EventSet) (int, error) {
	count, err := call("DeviceGetCount", lib.DeviceGetCount)
	if err != nil {
		return 0, err
	}
	registered := 0
	for i := range count {
		dev, err := call("DeviceGetHandleByIndex", func() (nvml.Device, nvml.Return) { return lib.DeviceGetHandleByIndex(i) })
		if err != nil {
			return 0, fmt.Errorf("GPU %d: %w", i, err)
		}
		err = call0("RegisterEvents", func() nvml.Return { return dev.RegisterEvents(nvml.EventTypeXidCriticalError, set) })
		if unsupported(err) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("GPU %d: %w", i, err)
		}
		registered++
	}
	return registered, nil
}

// take drains pending events and returns, then resets, uuid's count.
func (x *xidEvents) take(uuid string) (uint32, error) {
	if err := x.drain(); err != nil {
		return 0, err
	}
	n := x.counts[uuid]
	delete(x.counts, uuid)
	return n, nil
}

// drain reads the event set without blocking (timeout 0) until NVML
// reports ERROR_TIMEOUT, i.e. nothing is pending.
func (x *xidEvents) drain() error {
	if x.set == nil {
		return nil
	}
	for range maxXIDDrain {
		data, err := call("EventSetWait", func() (nvml.EventData, nvml.Return) { return x.set.Wait(0) })
		if errors.Is(err, nvml.ERROR_TIMEOUT) {
			return nil
		}
		if err != nil {
			return err
		}
		if data.EventType&nvml.EventTypeXidCriticalError == 0 || data.Device == nil {
			continue
		}
		// An event whose GPU cannot name itself cannot be attributed to
		// a reading; the failing GPU's own Read reports its NVML error.
		uuid, err := call("GetUUID", data.Device.GetUUID)
		if err != nil {
			continue
		}
		x.counts[uuid]++
	}
	return nil
}

// close frees the event set.
func (x *xidEvents) close() error {
	if x.set == nil {
		return nil
	}
	set := x.set
	x.set = nil
	return call0("EventSetFree", set.Free)
}

// unsupported says whether err means the feature is absent rather than broken.
func unsupported(err error) bool {
	return errors.Is(err, nvml.ERROR_NOT_SUPPORTED) || errors.Is(err, nvml.ERROR_FUNCTION_NOT_FOUND)
}
