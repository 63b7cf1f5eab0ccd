package audit

import (
	"crypto/sha256"
	"encoding/binary"
	"math/big"
	"slices"
)

// SampleLeaves chooses which k transcript leaves a provider must open: k
// distinct leaves, sorted, from sha256("idlegpu/memwalk/v1/sample" ‖
// entropy ‖ u64be(audit id) ‖ root ‖ u32be(counter)) reduced without bias
// (rejection of the top partial range) modulo the leaf count.
//
// entropy is the header hash of the first block after the one that
// included the answer, so the root is fixed before anyone knows the
// samples (docs/design.md#audits). With leaves ≤ k every leaf is opened.
func SampleLeaves(entropy []byte, auditID uint64, root []byte, leaves uint64, k uint32) []uint64 {
	if leaves == 0 {
		return nil
	}
	if leaves <= uint64(k) {
		all := make([]uint64, leaves)
		for i := range all {
			all[i] = uint64(i)
		}
		return all
	}
	msg := append([]byte(MemWalkV1Name+"/sample"), entropy...)
	msg = binary.BigEndian.AppendUint64(msg, auditID)
	msg = append(msg, root...)
	n := len(msg)
	// The largest multiple of leaves that fits in 64 bits: draws at or above
	// it are rejected so every leaf is equally likely.
	limit := new(big.Int).Lsh(big.NewInt(1), 64)
	limit.Sub(limit, new(big.Int).Mod(limit, new(big.Int).SetUint64(leaves)))
	out := make([]uint64, 0, k)
	// Bounded: each draw is rejected with probability < 2^-32 and repeats
	// only while leaves is close to k, so 2^16 hashes always suffice.
	for counter := uint32(0); len(out) < int(k) && counter < 1<<16; counter++ {
		sum := sha256.Sum256(binary.BigEndian.AppendUint32(msg[:n:n], counter))
		for w := 0; w+8 <= len(sum) && len(out) < int(k); w += 8 {
			v := binary.BigEndian.Uint64(sum[w:])
			if new(big.Int).SetUint64(v).Cmp(limit) >= 0 {
				continue
			}
			leaf := v % leaves
			if !slices.Contains(out, leaf) {
				out = append(out, leaf)
			}
		}
	}
	slices.Sort(out)
	return out
}
