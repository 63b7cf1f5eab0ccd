// Package config is the agent's TOML configuration: where the chain is,
// which key signs, which GPU and runner backends to use, the pricing and
// safety policy, and where state, the renter endpoint and metrics live.
// `idlegpu-agent init` writes it with a comment on every setting.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/idlegpu/idlegpu/agent/runner"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// Config is the whole agent configuration.
type Config struct {
	Chain    Chain    `toml:"chain" comment:"The idlegpu chain the agent follows and sends transactions to."`
	Key      Key      `toml:"key" comment:"The agent's signing key. The provider's operator names it an agent (idlegpud tx provider update-provider ... --agents <address>)."`
	GPU      GPU      `toml:"gpu" comment:"GPU telemetry. \"auto\" and \"nvml\" read the GPUs through the NVIDIA driver and refuse to start without it; simulated GPUs only with backend = \"sim\" (tests and demos; register takes them on development chains only)."`
	Runner   Runner   `toml:"runner" comment:"How leased jobs run."`
	Policy   Policy   `toml:"policy" comment:"What the agent offers, at what price, and when it refuses or preempts work."`
	Endpoint Endpoint `toml:"endpoint" comment:"The renter-facing HTTP endpoint (the provider's registered endpoint must reach it)."`
	Metrics  Metrics  `toml:"metrics" comment:"Prometheus metrics."`
	State    State    `toml:"state" comment:"Durable local state: leases, samples, unsent proofs."`
	Rewards  Rewards  `toml:"rewards" comment:"Claiming the provider's rewards (only when the agent key is the provider's operator)."`
	JobData  JobData  `toml:"job_data" comment:"Renters' data: inputs fetched before a job starts, outputs kept for download after it ends."`
	Ingress  Ingress  `toml:"ingress" comment:"Leases' inbound services: an HTTPS proxy serving each lease at lease-<id>.<domain> to renter-issued API keys."`
}

// Chain says where the chain is.
type Chain struct {
	RPC string `toml:"rpc" comment:"CometBFT RPC address of a node."`
	// RPCFallbacks lets the agent ride out one node's outage.
	RPCFallbacks []string `toml:"rpc_fallbacks" comment:"More nodes' RPC addresses of the same chain, tried in order when the current node cannot be reached (queries, transactions and the block follower)."`
	ChainID      string   `toml:"chain_id" comment:"Chain id."`
	GasPrices    string   `toml:"gas_prices" comment:"Gas price paid per unit of gas, e.g. 0.0025ugpu."`
}

// Key says which key signs.
type Key struct {
	Name           string `toml:"name" comment:"Key name in the keyring."`
	KeyringBackend string `toml:"keyring_backend" comment:"Keyring backend: file (encrypted, asks for a passphrase), os, or test (unencrypted, local networks only)."`
	KeyringDir     string `toml:"keyring_dir" comment:"Keyring directory."`
	Provider       string `toml:"provider" comment:"The provider (operator address) this agent acts for."`
	// PassphraseFile lets a service without a terminal unlock the file keyring.
	PassphraseFile string `toml:"passphrase_file" comment:"file keyring: a file whose first line is the passphrase, readable by the agent only (services without a terminal). Empty: IDLEGPU_KEYRING_PASSPHRASE, else the terminal asks, else stdin's first line."`
}

// GPU picks the telemetry backend.
type GPU struct {
	Backend  string `toml:"backend" comment:"auto | nvml | sim"`
	SimModel string `toml:"sim_model" comment:"sim backend: the model the simulated GPUs report."`
	SimCount int    `toml:"sim_count" comment:"sim backend: how many GPUs."`
	SimSeed  int64  `toml:"sim_seed" comment:"sim backend: seed of their identities and load."`
	// SimControl lets a demo or a test heat a simulated GPU from outside the
	// agent; a real GPU has no such knob.
	SimControl string `toml:"sim_control" comment:"sim backend: a JSON file {\"<uuid>\": {\"temp_c\": 95}} read every sample, to simulate heat (empty: off)."`
}

// Runner picks the job runner.
type Runner struct {
	Backend string `toml:"backend" comment:"docker | process (process runs the manifest's command on this host: development only, needs unsafe_process_runner)."`
	WorkDir string `toml:"work_dir" comment:"Where job logs and working directories go."`
	// UnsafeProcessRunner is the explicit consent the process runner needs:
	// it cannot confine a job to its GPUs, and without root it cannot keep the
	// job from the agent's files.
	UnsafeProcessRunner bool   `toml:"unsafe_process_runner" comment:"Allow backend = \"process\" (development, tests, demos). As root each job runs as its own unprivileged user (job_uid_base + lease id mod 100000) in a directory of its own under job_root; otherwise as the agent's user, able to read its keys. Never on a machine that serves real renters."`
	JobUIDBase          uint32 `toml:"job_uid_base" comment:"process runner as root: each job runs as uid and gid job_uid_base + lease id mod 100000 (0: 200000); no user of the host may have those ids."`
	JobRoot             string `toml:"job_root" comment:"process runner as root: the jobs' working directories, outside the agent's home (empty: /var/tmp/idlegpu-jobs)."`
	// Resources per GPU are published in every offer and enforced per job.
	// init derives them from the machine; 0 is "no limit" only for a
	// resource named in Unlimited, so an older file's zeros stop the docker
	// runner with an error instead of running jobs on the whole machine.
	CPUCoresPerGPU  uint32 `toml:"cpu_cores_per_gpu" comment:"docker runner: CPU cores a job gets per leased GPU (published in offers). init: the machine's cores less one for the host, divided by the GPUs. 0: no CPU limit, only with \"cpu\" in unlimited."`
	MemoryMiBPerGPU uint64 `toml:"memory_mib_per_gpu" comment:"docker runner: host memory per leased GPU in MiB, no swap; /tmp and /dev/shm count in it (published in offers). init: the machine's memory less the host's reserve (a tenth, at least 4 GiB), divided by the GPUs. 0: no limit, only with \"memory\" in unlimited."`
	DiskGiBPerGPU   uint64 `toml:"disk_gib_per_gpu" comment:"docker runner: disk per leased GPU in GiB: what a job writes to /scratch and its writable mounts (and its root filesystem when it may run as root), measured every few seconds, the job killed beyond it (published in offers). init: half the space available on work_dir's filesystem, divided by the GPUs. 0: no limit, only with \"disk\" in unlimited."`
	MaxImageBytes   int64  `toml:"max_image_bytes" comment:"docker runner: job images kept on disk; beyond this the least recently used ones no running job uses are removed. init: a quarter of the space available on work_dir's filesystem. 0: never removed, only with \"images\" in unlimited."`
	// Unlimited is the provider's explicit consent to run jobs unbounded in
	// a resource.
	Unlimited []string `toml:"unlimited" comment:"docker runner: the limits given up, by name: cpu, memory, disk, pids, images. A limit that is 0 and not named here stops the docker runner from starting."`
	LogMaxMiB uint64   `toml:"log_max_mib" comment:"docker runner: the agent's copy of a job's output in MiB, under work_dir; beyond it the oldest half is dropped (0: 64)."`

	// EgressMbpsPerGPU is the network policy published in every offer.
	EgressMbpsPerGPU uint32 `toml:"egress_mbps_per_gpu" comment:"docker runner: internet egress a job gets per leased GPU in Mbit/s, shaped, never to this host or private ranges; only jobs that ask for network get it (published in offers, at most 100000). 0: jobs get no network."`
}

// Policy is the provider's pricing and safety policy.
type Policy struct {
	Prices          []Price  `toml:"prices" comment:"Price floors per GPU-hour, by model, in a currency of the chain: human units (2.5usdc/gpu-h) or base units (2500000uusdc)."`
	Workloads       []string `toml:"workloads" comment:"Workloads accepted: inference, training, batch, render (the chain's workloads)."`
	ImagePrefixes   []string `toml:"image_prefixes" comment:"Only images whose reference starts with one of these run (empty: any)."`
	MaxTempC        uint32   `toml:"max_temp_c" comment:"Above this GPU temperature no new work is taken; held for preempt_after samples it preempts BRONZE leases."`
	MaxPowerW       uint32   `toml:"max_power_w" comment:"Power limit per GPU, in watts, with the same effect."`
	PreemptAfter    int      `toml:"preempt_after" comment:"Consecutive samples over a limit before BRONZE leases are preempted."`
	MaxLeaseSeconds uint64   `toml:"max_lease_seconds" comment:"Longest lease offered."`
	// DynamicBps raises prices with the provider's utilisation.
	DynamicBps   uint32         `toml:"dynamic_bps" comment:"Utilisation-based pricing: at 100% of GPUs leased the asked price is the floor plus this many bps (0: off)."`
	Availability []Availability `toml:"availability" comment:"Weekly availability; the agent publishes the coming windows with its offer (none: always available)."`
}

// Availability is a weekly rule: on these days, from..to local time (to
// before from runs past midnight).
type Availability struct {
	Days     string `toml:"days" comment:"e.g. mon-fri, sat,sun, or daily."`
	From     string `toml:"from" comment:"HH:MM local time."`
	To       string `toml:"to" comment:"HH:MM local time (earlier than from: until the next day)."`
	TimeZone string `toml:"time_zone" comment:"IANA zone, e.g. Europe/Berlin (empty: UTC)."`
}

// Price is one model's floor.
type Price struct {
	Model       string `toml:"model"`
	OnDemand    string `toml:"on_demand" comment:"e.g. 2usdc/gpu-h or 2000000uusdc (GOLD and SILVER work)."`
	Preemptible string `toml:"preemptible" comment:"e.g. 0.9usdc/gpu-h or 900000uusdc (BRONZE work, may be preempted)."`
}

// Endpoint is the renter-facing HTTP server.
type Endpoint struct {
	Listen  string `toml:"listen" comment:"host:port to listen on."`
	TLSCert string `toml:"tls_cert" comment:"PEM certificate the endpoint serves (init makes a self-signed one; its sha256 is the pin registered on chain). Empty: plain HTTP, allowed on loopback only."`
	TLSKey  string `toml:"tls_key" comment:"PEM private key of tls_cert."`
	// The connection caps keep one host from starving the others.
	MaxConns        int `toml:"max_conns" comment:"Open connections at most; more wait in the kernel's backlog (0: 256)."`
	MaxConnsPerHost int `toml:"max_conns_per_host" comment:"Open connections from one address (an IPv6 /64) at most; more are closed at once. Raise it when many renters reach you through one NAT (0: 16; held below half of max_conns)."`
}

// isLoopback: localhost or a loopback IP.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// TLS says whether the endpoint serves https.
func (e Endpoint) TLS() bool { return e.TLSCert != "" }

// Metrics is the Prometheus endpoint.
type Metrics struct {
	Listen string `toml:"listen" comment:"host:port of /metrics (empty: off)."`
}

// State is where durable state goes.
// Rewards says when the agent claims.
type Rewards struct {
	ClaimEvery string `toml:"claim_every" comment:"How often unclaimed rewards are claimed, e.g. 24h (0: never; claim with idlegpud tx settlement claim-rewards)."`
}

// Every is the claim interval (0: never).
func (r Rewards) Every() (time.Duration, error) {
	if r.ClaimEvery == "" || r.ClaimEvery == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(r.ClaimEvery)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("rewards.claim_every: want a duration like 24h, got %q", r.ClaimEvery)
	}
	return d, nil
}

type State struct {
	Dir string `toml:"dir" comment:"State directory (keep it on a disk that survives reboots)."`
}

// Default is the configuration `init` writes for an agent home.
func Default(home string) Config {
	return Config{
		Chain:  Chain{RPC: "tcp://127.0.0.1:26657", RPCFallbacks: []string{}, ChainID: "idlegpu-local", GasPrices: "0.0025ugpu"},
		Key:    Key{Name: "agent", KeyringBackend: "file", KeyringDir: home},
		GPU:    GPU{Backend: "auto", SimModel: "NVIDIA H100 80GB HBM3", SimCount: 4, SimSeed: 1},
		Runner: Runner{Backend: "docker", WorkDir: filepath.Join(home, "jobs"), Unlimited: []string{}},
		Policy: Policy{
			Prices:    []Price{{Model: "NVIDIA H100 80GB HBM3", OnDemand: "2000000uusdc", Preemptible: "900000uusdc"}},
			Workloads: []string{"training", "inference", "batch"}, ImagePrefixes: []string{}, MaxTempC: 85, MaxPowerW: 700, PreemptAfter: 6,
			MaxLeaseSeconds: 72 * 3600, Availability: []Availability{},
		},
		Endpoint: Endpoint{Listen: "0.0.0.0:9180", TLSCert: filepath.Join(home, "endpoint.crt"), TLSKey: filepath.Join(home, "endpoint.key")},
		Metrics:  Metrics{Listen: "127.0.0.1:9181"},
		State:    State{Dir: filepath.Join(home, "state")},
		Rewards:  Rewards{ClaimEvery: "24h"},
		JobData:  JobData{Dir: filepath.Join(home, "jobs", "data"), CacheGiB: DefaultCacheGiB, LeaseInputGiB: DefaultLeaseInputGiB, OutputRetention: "72h"},
	}
}

// workloads are the chain's workload names (x/offer's Workload enum).
var workloads = []string{"inference", "training", "batch", "render"}

// Validate checks every setting and names the first bad one.
func (c Config) Validate() error {
	var errs []error
	need := func(field, v string) {
		if strings.TrimSpace(v) == "" {
			errs = append(errs, fmt.Errorf("%s must be set", field))
		}
	}
	need("chain.rpc", c.Chain.RPC)
	for i, u := range c.Chain.RPCFallbacks {
		need(fmt.Sprintf("chain.rpc_fallbacks[%d]", i), u)
	}
	need("chain.chain_id", c.Chain.ChainID)
	need("chain.gas_prices", c.Chain.GasPrices)
	need("key.name", c.Key.Name)
	need("key.keyring_dir", c.Key.KeyringDir)
	need("state.dir", c.State.Dir)
	need("endpoint.listen", c.Endpoint.Listen)
	if c.Endpoint.MaxConns < 0 || c.Endpoint.MaxConnsPerHost < 0 {
		errs = append(errs, fmt.Errorf("endpoint.max_conns %d and max_conns_per_host %d: want 0 (the default) or more", c.Endpoint.MaxConns, c.Endpoint.MaxConnsPerHost))
	}
	if (c.Endpoint.TLSCert == "") != (c.Endpoint.TLSKey == "") {
		errs = append(errs, errors.New("endpoint.tls_cert and endpoint.tls_key go together"))
	}
	if !c.Endpoint.TLS() {
		if host, _, err := net.SplitHostPort(c.Endpoint.Listen); err != nil || !isLoopback(host) {
			errs = append(errs, fmt.Errorf("endpoint.listen %q without TLS: plain HTTP is for loopback only (manifests carry secrets); set endpoint.tls_cert and tls_key", c.Endpoint.Listen))
		}
	}
	if _, err := c.Rewards.Every(); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.JobData.Resolved(c.Runner.WorkDir); err != nil {
		errs = append(errs, err)
	}
	if !slices.Contains([]string{"file", "os", "test"}, c.Key.KeyringBackend) {
		errs = append(errs, fmt.Errorf("key.keyring_backend must be file, os or test, got %q", c.Key.KeyringBackend))
	}
	if c.Key.PassphraseFile != "" && c.Key.KeyringBackend != "file" {
		errs = append(errs, fmt.Errorf("key.passphrase_file is for the file keyring, and key.keyring_backend is %q", c.Key.KeyringBackend))
	}
	if !slices.Contains([]string{"auto", "nvml", "sim"}, c.GPU.Backend) {
		errs = append(errs, fmt.Errorf("gpu.backend must be auto, nvml or sim, got %q", c.GPU.Backend))
	}
	if c.GPU.Backend == "sim" && (c.GPU.SimCount < 1 || c.GPU.SimCount > 64 || c.GPU.SimModel == "") {
		errs = append(errs, fmt.Errorf("gpu.sim_count must be 1..64 and gpu.sim_model set for the sim backend"))
	}
	if !slices.Contains([]string{"docker", "process"}, c.Runner.Backend) {
		errs = append(errs, fmt.Errorf("runner.backend must be docker or process, got %q", c.Runner.Backend))
	}
	if c.Runner.EgressMbpsPerGPU > offertypes.MaxEgressMbpsPerGPU {
		errs = append(errs, fmt.Errorf("runner.egress_mbps_per_gpu: %d is above the chain's bound of %d Mbit/s per GPU", c.Runner.EgressMbpsPerGPU, offertypes.MaxEgressMbpsPerGPU))
	}
	for _, n := range c.Runner.Unlimited {
		if !slices.Contains(runner.LimitNames, n) {
			errs = append(errs, fmt.Errorf("runner.unlimited: unknown limit %q (known: %s)", n, strings.Join(runner.LimitNames, ", ")))
		}
	}
	if c.Runner.Backend == "process" && !c.Runner.UnsafeProcessRunner {
		errs = append(errs, errors.New("runner.backend = \"process\" runs renters' commands on this host without a container: set runner.unsafe_process_runner = true to allow it (development only), or use docker"))
	}
	for _, w := range c.Policy.Workloads {
		if !slices.Contains(workloads, w) {
			errs = append(errs, fmt.Errorf("policy.workloads: unknown workload %q (known: %s)", w, strings.Join(workloads, ", ")))
		}
	}
	for i, p := range c.Policy.Prices {
		if p.Model == "" || (p.OnDemand == "" && p.Preemptible == "") {
			errs = append(errs, fmt.Errorf("policy.prices[%d]: a model and at least one price", i))
		}
	}
	if c.Policy.PreemptAfter < 1 {
		errs = append(errs, errors.New("policy.preempt_after must be at least 1"))
	}
	if c.Policy.MaxLeaseSeconds == 0 {
		errs = append(errs, errors.New("policy.max_lease_seconds must be positive"))
	}
	errs = append(errs, c.Ingress.validate()...)
	return errors.Join(errs...)
}

// MaxLease is the longest lease offered.
func (p Policy) MaxLease() time.Duration { return time.Duration(p.MaxLeaseSeconds) * time.Second }

// Load reads and validates a configuration file; unknown keys are errors,
// so a typo never silently falls back to a default.
func Load(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	var c Config
	dec := toml.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		var strict *toml.StrictMissingError
		if errors.As(err, &strict) {
			return Config{}, fmt.Errorf("%s: unknown settings:\n%s", path, strict.String())
		}
		return Config{}, decodeErrorAt(path, b, err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Marshal renders the configuration as commented TOML.
func (c Config) Marshal() ([]byte, error) {
	b, err := toml.Marshal(c)
	if err != nil {
		return nil, err
	}
	return append([]byte("# idlegpu-agent configuration (written by `idlegpu-agent init`).\n\n"), b...), nil
}
