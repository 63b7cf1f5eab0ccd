package types

import (
	"strings"

	errorsmod "cosmossdk.io/errors"
)

const (
	// MaxCPUCoresPerGPU bounds cpu_cores_per_gpu: far above any machine, so
	// n × cores never overflows and a typo is caught.
	MaxCPUCoresPerGPU = 1024
	// MaxMemoryMiBPerGPU bounds memory_mib_per_gpu (64 TiB).
	MaxMemoryMiBPerGPU = 64 << 20
	// MaxDiskGiBPerGPU bounds disk_gib_per_gpu (1 PiB).
	MaxDiskGiBPerGPU = 1 << 20
	// MaxImagePrefixes bounds an offer's image prefixes (checked in clearing).
	MaxImagePrefixes = 16
	// MaxImagePrefixLength bounds one image prefix (x/auction's longest image).
	MaxImagePrefixLength = 256
)

// validateResources bounds the host resources that come with each GPU.
func (t OfferTerms) validateResources() error {
	switch {
	case t.CpuCoresPerGpu > MaxCPUCoresPerGPU:
		return errorsmod.Wrapf(ErrInvalidResources, "cpu_cores_per_gpu %d: at most %d", t.CpuCoresPerGpu, MaxCPUCoresPerGPU)
	case t.MemoryMibPerGpu > MaxMemoryMiBPerGPU:
		return errorsmod.Wrapf(ErrInvalidResources, "memory_mib_per_gpu %d: at most %d", t.MemoryMibPerGpu, MaxMemoryMiBPerGPU)
	case t.DiskGibPerGpu > MaxDiskGiBPerGPU:
		return errorsmod.Wrapf(ErrInvalidResources, "disk_gib_per_gpu %d: at most %d", t.DiskGibPerGpu, MaxDiskGiBPerGPU)
	}
	return nil
}

// validateImagePrefixes checks the image prefixes: at most
// MaxImagePrefixes, each 1..MaxImagePrefixLength printable bytes without
// spaces, none listed twice.
func validateImagePrefixes(list []string) error {
	if len(list) > MaxImagePrefixes {
		return errorsmod.Wrapf(ErrInvalidImagePrefixes, "%d entries, at most %d", len(list), MaxImagePrefixes)
	}
	for i, p := range list {
		if p == "" || len(p) > MaxImagePrefixLength || !printableNoSpace(p) {
			return errorsmod.Wrapf(ErrInvalidImagePrefixes, "entry %d %q: must be 1..%d printable bytes without spaces", i, p, MaxImagePrefixLength)
		}
		for _, prev := range list[:i] {
			if prev == p {
				return errorsmod.Wrapf(ErrInvalidImagePrefixes, "entry %d %q is listed twice", i, p)
			}
		}
	}
	return nil
}

func printableNoSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// AllowsImageRef reports whether the image reference is one the provider
// runs: empty prefixes take any image; otherwise the image must start with
// a prefix at a reference boundary, so "ghcr.io/acme" takes
// "ghcr.io/acme/train:v1" and "ghcr.io/acme@sha256:…" but not
// "ghcr.io/acme-evil/x". The agent applies this same rule before it runs a
// job, so the chain never matches a job the agent would refuse.
func (t OfferTerms) AllowsImageRef(image string) bool {
	return ImagePrefixesAllow(t.ImagePrefixes, image)
}

// ImagePrefixesAllow is AllowsImageRef over a bare prefix list.
func ImagePrefixesAllow(prefixes []string, image string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		rest, ok := strings.CutPrefix(image, p)
		if !ok {
			continue
		}
		if rest == "" || strings.HasSuffix(p, "/") || strings.HasSuffix(p, ":") || strings.HasSuffix(p, "@") ||
			rest[0] == '/' || rest[0] == ':' || rest[0] == '@' {
			return true
		}
	}
	return false
}

// HasResources reports whether the terms give at least the CPU cores,
// host memory and disk per GPU a job requires (0: no requirement). An offer
// that does not state a resource (0) fits only jobs that require none of it.
func (t OfferTerms) HasResources(cpuCores uint32, memoryMiB, diskGiB uint64) bool {
	return t.CpuCoresPerGpu >= cpuCores && t.MemoryMibPerGpu >= memoryMiB && t.DiskGibPerGpu >= diskGiB
}
