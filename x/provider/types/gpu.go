package types

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	errorsmod "cosmossdk.io/errors"
)

// Limits on GPU inventory fields.
const (
	MaxModelLength    = 96
	MaxVersionLength  = 32
	MaxPCIBusIDLength = 32
)

// fingerprintDomain separates GPU fingerprints from any other SHA-256 use.
const fingerprintDomain = "idlegpu/gpu-fingerprint/v1"

// ValidateGPUUUID checks NVML's GPU UUID form: "GPU-" then 8-4-4-4-12
// lower-case hex digits. (MIG instance UUIDs are not GPUs and are refused.)
func ValidateGPUUUID(uuid string) error {
	const prefix = "GPU-"
	if len(uuid) != len(prefix)+36 || uuid[:len(prefix)] != prefix {
		return errorsmod.Wrapf(ErrInvalidGPUUUID, "%q: want GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", uuid)
	}
	for i, r := range uuid[len(prefix):] {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return errorsmod.Wrapf(ErrInvalidGPUUUID, "%q: want GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", uuid)
			}
		default:
			if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
				return errorsmod.Wrapf(ErrInvalidGPUUUID, "%q: digits must be lower-case hex", uuid)
			}
		}
	}
	return nil
}

// Validate checks one GPU's inventory fields.
func (g GPUInfo) Validate() error {
	if err := ValidateGPUUUID(g.Uuid); err != nil {
		return err
	}
	if err := printableASCII("model", g.Model, MaxModelLength); err != nil {
		return errorsmod.Wrapf(ErrInvalidGPU, "%s: %v", g.Uuid, err)
	}
	if g.MemoryMib == 0 {
		return errorsmod.Wrapf(ErrInvalidGPU, "%s: memory_mib must be positive", g.Uuid)
	}
	if !isPCIBusID(g.PciBusId) {
		return errorsmod.Wrapf(ErrInvalidGPU, "%s: pci_bus_id %q: want dddddddd:bb:dd.f (hex)", g.Uuid, g.PciBusId)
	}
	if err := printableASCII("driver_version", g.DriverVersion, MaxVersionLength); err != nil {
		return errorsmod.Wrapf(ErrInvalidGPU, "%s: %v", g.Uuid, err)
	}
	if err := printableASCII("vbios_version", g.VbiosVersion, MaxVersionLength); err != nil {
		return errorsmod.Wrapf(ErrInvalidGPU, "%s: %v", g.Uuid, err)
	}
	return nil
}

// Fingerprint is the hex SHA-256 of the GPU's canonical inventory:
//
//	sha256("idlegpu/gpu-fingerprint/v1" ‖ f(uuid) ‖ f(model) ‖ be64(memory_mib) ‖ f(pci_bus_id) ‖ f(driver_version) ‖ f(vbios_version))
//
// where f(s) is s's length as a big-endian uint32 followed by its bytes, so
// no two inventories share an encoding. The chain computes it; any
// implementation (the agent, an indexer) can reproduce it.
func (g GPUInfo) Fingerprint() string {
	h := sha256.New()
	h.Write([]byte(fingerprintDomain))
	field := func(s string) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field(g.Uuid)
	field(g.Model)
	var mem [8]byte
	binary.BigEndian.PutUint64(mem[:], g.MemoryMib)
	h.Write(mem[:])
	field(g.PciBusId)
	field(g.DriverVersion)
	field(g.VbiosVersion)
	return hex.EncodeToString(h.Sum(nil))
}

// isPCIBusID accepts NVML's bus id form, domain:bus:device.function in hex,
// e.g. "00000000:3B:00.0" (the domain has 4 or 8 digits).
func isPCIBusID(s string) bool {
	if len(s) > MaxPCIBusIDLength {
		return false
	}
	var domain, bus, dev, fn int
	i := 0
	count := func(stop byte) int {
		n := 0
		for i < len(s) && s[i] != stop && isHex(s[i]) {
			i++
			n++
		}
		return n
	}
	domain = count(':')
	if i >= len(s) || s[i] != ':' {
		return false
	}
	i++
	bus = count(':')
	if i >= len(s) || s[i] != ':' {
		return false
	}
	i++
	dev = count('.')
	if i >= len(s) || s[i] != '.' {
		return false
	}
	i++
	fn = count(0)
	return i == len(s) && (domain == 4 || domain == 8) && bus == 2 && dev == 2 && fn == 1
}

func isHex(b byte) bool {
	return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F')
}

func printableASCII(field, s string, maxLen int) error {
	if s == "" || len(s) > maxLen {
		return fmt.Errorf("%s must be 1..%d bytes, got %d", field, maxLen, len(s))
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return fmt.Errorf("%s %q must be printable ASCII", field, s)
		}
	}
	return nil
}

// Info returns the inventory fields of a registered GPU.
func (g GPU) Info() GPUInfo {
	return GPUInfo{
		Uuid:          g.Uuid,
		Model:         g.Model,
		MemoryMib:     g.MemoryMib,
		PciBusId:      g.PciBusId,
		DriverVersion: g.DriverVersion,
		VbiosVersion:  g.VbiosVersion,
		Simulated:     g.Simulated,
	}
}
