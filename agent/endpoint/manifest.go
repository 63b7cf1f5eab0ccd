package endpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/idlegpu/idlegpu/agent/runner"
)

// Manifest is what the renter sends to start a lease's job; its sha256 is
// the job's manifest_hash on chain, so the provider runs exactly what the
// renter committed to when posting the job. Env values may be secrets: they
// never go on chain (only the hash does) and the agent never logs them.
type Manifest struct {
	// Command is the job's argv (docker: the container command).
	Command []string `json:"command"`
	// Env are environment variables for the job.
	Env map[string]string `json:"env,omitempty"`
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// ParseManifest decodes and checks a manifest strictly (unknown fields are
// errors: a renter's typo must not silently drop a setting).
func ParseManifest(b []byte) (Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("manifest: %w", err)
	}
	if len(m.Command) == 0 || m.Command[0] == "" {
		return Manifest{}, fmt.Errorf("manifest: command must name a program")
	}
	for k := range m.Env {
		if !envName.MatchString(k) {
			return Manifest{}, fmt.Errorf("manifest: env name %q", k)
		}
		if runner.ReservedEnv(k) {
			return Manifest{}, fmt.Errorf("manifest: %s is set by the agent", k)
		}
	}
	return m, nil
}
