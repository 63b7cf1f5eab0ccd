package types

import (
	"crypto/sha256"
	"encoding/hex"
)

// ManifestHash is a job's manifest_hash: the sha256 of the manifest file's
// bytes, in lower-case hex. The agent's endpoint runs only a manifest with
// this hash.
func ManifestHash(manifest []byte) string {
	sum := sha256.Sum256(manifest)
	return hex.EncodeToString(sum[:])
}
