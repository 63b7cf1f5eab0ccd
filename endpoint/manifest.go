package endpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
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
	// Inputs are files the agent fetches and checks before the job starts,
	// mounted read-only under /inputs. The job's /output directory is
	// always there; its files are listed and served once the job ends.
	Inputs []Input `json:"inputs,omitempty"`
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// ParseManifest decodes and checks a manifest strictly: unknown fields
// are errors (a renter's typo must not silently drop a setting), and so is
// anything two JSON readers could read differently from the same committed
// bytes — trailing data, duplicate or case-folded duplicate keys (the
// standard decoder keeps the last and folds case), invalid UTF-8 (replaced
// silently) and NUL in a value (cut short by exec).
func ParseManifest(b []byte) (Manifest, error) {
	m, err := decodeManifest(b)
	if err != nil {
		return Manifest{}, fmt.Errorf("manifest: %w", err)
	}
	if len(m.Command) == 0 || m.Command[0] == "" {
		return Manifest{}, fmt.Errorf("manifest: command must name a program")
	}
	for _, a := range m.Command {
		if strings.IndexByte(a, 0) >= 0 {
			return Manifest{}, fmt.Errorf("manifest: NUL in a command argument")
		}
	}
	for k, v := range m.Env {
		if !envName.MatchString(k) {
			return Manifest{}, fmt.Errorf("manifest: env name %q", k)
		}
		if ReservedEnv(k) {
			return Manifest{}, fmt.Errorf("manifest: %s is set by the agent", k)
		}
		if strings.IndexByte(v, 0) >= 0 {
			return Manifest{}, fmt.Errorf("manifest: NUL in env %s", k)
		}
	}
	if err := ValidateInputs(m.Inputs); err != nil {
		return Manifest{}, fmt.Errorf("manifest: %w", err)
	}
	return m, nil
}

// decodeManifest walks the JSON tokens itself: the standard decoder
// cannot see duplicate keys.
func decodeManifest(b []byte) (Manifest, error) {
	var m Manifest
	if !utf8.Valid(b) {
		return m, errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := delim(dec, '{', "a manifest"); err != nil {
		return m, err
	}
	seen := map[string]bool{}
	for dec.More() {
		k, err := str(dec)
		if err != nil {
			return m, err
		}
		if seen[k] {
			return m, fmt.Errorf("duplicate key %q", k)
		}
		seen[k] = true
		switch k {
		case "command":
			if m.Command, err = stringArray(dec); err != nil {
				return m, fmt.Errorf("command: %w", err)
			}
		case "env":
			if m.Env, err = env(dec); err != nil {
				return m, fmt.Errorf("env: %w", err)
			}
		case "inputs":
			if m.Inputs, err = inputs(dec); err != nil {
				return m, fmt.Errorf("inputs: %w", err)
			}
		default:
			return m, fmt.Errorf("unknown field %q", k)
		}
	}
	if err := delim(dec, '}', "the manifest's end"); err != nil {
		return m, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return m, errors.New("trailing data after the manifest")
	}
	return m, nil
}

func delim(dec *json.Decoder, want json.Delim, what string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %s, found %v", what, tok)
	}
	return nil
}

func str(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	s, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("expected a string, found %v", tok)
	}
	return s, nil
}

// stringArray reads an array of strings.
func stringArray(dec *json.Decoder) ([]string, error) {
	if err := delim(dec, '[', "an array of strings"); err != nil {
		return nil, err
	}
	out := []string{}
	for dec.More() {
		s, err := str(dec)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, delim(dec, ']', "the array's end")
}

// env reads an object of strings whose keys differ even ignoring case
// (env names are ASCII).
func env(dec *json.Decoder) (map[string]string, error) {
	if err := delim(dec, '{', "an object of strings"); err != nil {
		return nil, err
	}
	out := map[string]string{}
	folded := map[string]bool{}
	for dec.More() {
		k, err := str(dec)
		if err != nil {
			return nil, err
		}
		if folded[strings.ToUpper(k)] {
			return nil, fmt.Errorf("duplicate key %q", k)
		}
		folded[strings.ToUpper(k)] = true
		if out[k], err = str(dec); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		out = nil
	}
	return out, delim(dec, '}', "the object's end")
}

// inputs reads an array of {"url", "sha256", "path"} objects, each key
// required, once.
func inputs(dec *json.Decoder) ([]Input, error) {
	if err := delim(dec, '[', "an array of inputs"); err != nil {
		return nil, err
	}
	var out []Input
	for dec.More() {
		if len(out) == MaxInputs {
			return nil, fmt.Errorf("more than %d inputs", MaxInputs)
		}
		if err := delim(dec, '{', "an input object"); err != nil {
			return nil, err
		}
		var in Input
		fields := map[string]*string{"url": &in.URL, "sha256": &in.SHA256, "path": &in.Path}
		seen := map[string]bool{}
		for dec.More() {
			k, err := str(dec)
			if err != nil {
				return nil, err
			}
			dst, ok := fields[k]
			if !ok {
				return nil, fmt.Errorf("unknown field %q", k)
			}
			if seen[k] {
				return nil, fmt.Errorf("duplicate key %q", k)
			}
			seen[k] = true
			if *dst, err = str(dec); err != nil {
				return nil, err
			}
		}
		if len(seen) != len(fields) {
			return nil, fmt.Errorf("input %d: url, sha256 and path are all required", len(out))
		}
		if err := delim(dec, '}', "the input's end"); err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, delim(dec, ']', "the array's end")
}

// ReservedEnv names the variables the runner sets or the NVIDIA container
// runtime reads to pick devices: a manifest setting them could widen the
// job's view of the GPUs (with duplicates, which one a program sees varies).
func ReservedEnv(k string) bool {
	switch {
	case k == "CUDA_VISIBLE_DEVICES", strings.HasPrefix(k, "IDLEGPU_"):
		return true
	case strings.HasPrefix(k, "NVIDIA_") && strings.HasSuffix(k, "_DEVICES"):
		return true
	}
	return false
}
