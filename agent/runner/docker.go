package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// DockerAPI is the part of the Docker Engine API client the docker runner
// uses; *client.Client implements it. The client must negotiate the API
// version (client.WithAPIVersionNegotiation): every call here exists in API
// 1.41 (Docker 20.10), the oldest daemon we support.
type DockerAPI interface {
	ImageInspect(ctx context.Context, imageID string, opts ...client.ImageInspectOption) (image.InspectResponse, error)
	ImagePull(ctx context.Context, ref string, options image.PullOptions) (io.ReadCloser, error)
	ContainerCreate(ctx context.Context, config *container.Config, hostConfig *container.HostConfig, networkingConfig *network.NetworkingConfig, platform *ocispec.Platform, containerName string) (container.CreateResponse, error)
	NetworkConnect(ctx context.Context, networkID, containerID string, config *network.EndpointSettings) error
	ContainerStart(ctx context.Context, containerID string, options container.StartOptions) error
	ContainerLogs(ctx context.Context, containerID string, options container.LogsOptions) (io.ReadCloser, error)
	ContainerWait(ctx context.Context, containerID string, condition container.WaitCondition) (<-chan container.WaitResponse, <-chan error)
	ContainerStop(ctx context.Context, containerID string, options container.StopOptions) error
	ContainerRemove(ctx context.Context, containerID string, options container.RemoveOptions) error
	ContainerInspect(ctx context.Context, containerID string) (container.InspectResponse, error)
	ContainerInspectWithRaw(ctx context.Context, containerID string, getSize bool) (container.InspectResponse, []byte, error)
	ContainerAttach(ctx context.Context, containerID string, options container.AttachOptions) (types.HijackedResponse, error)
	ContainerTop(ctx context.Context, containerID string, arguments []string) (container.TopResponse, error)
	ImageList(ctx context.Context, options image.ListOptions) ([]image.Summary, error)
	ImageRemove(ctx context.Context, imageID string, options image.RemoveOptions) ([]image.DeleteResponse, error)
}

var _ DockerAPI = (*client.Client)(nil)

var (
	_ Runner = (*Docker)(nil)
	_ Runner = (*Process)(nil)
)

// DefaultPidsLimit bounds the number of processes in a job's container.
const DefaultPidsLimit = 4096

// LeaseLabel is the container label holding the lease id; EgressLabel
// its egress in Mbit/s when it has any, so a restarted agent shapes an
// adopted job as it was started.
const (
	LeaseLabel  = "idlegpu.lease"
	EgressLabel = "idlegpu.egress-mbps"
)

// DockerOptions configure the docker runner. Use DefaultDockerOptions for
// production: the zero value does not require digests, pull images or
// request GPUs.
type DockerOptions struct {
	// LogDir is the runner's work dir. LogDir/lease-N holds the job's
	// output (job.log.1 then job.log, at most LogMaxBytes together; read
	// them with OpenJobLog), which survives the container's removal, and
	// scratch, the job's /scratch, removed with the container.
	LogDir string
	// LogMaxBytes bounds the agent's copy of a job's output: beyond it the
	// oldest half is dropped. 0: DefaultLogMaxBytes.
	LogMaxBytes int64
	// DiskCheckInterval is how often the disk watchdog measures a job's
	// writable directories (and writable layer). 0: DefaultDiskCheckInterval.
	DiskCheckInterval time.Duration
	// Unlimited names the limits (LimitNames) the provider gives up: a job
	// runs without them when their option is 0. Any other limit left at 0
	// makes CheckLimits fail and Start refuse the job.
	Unlimited []string
	// Grace is how long Stop waits after SIGTERM before SIGKILL. Docker counts
	// in whole seconds: it is rounded up. 0: 10 s.
	Grace time.Duration
	// GPUMemoryFree, when set, is called after a job's container is removed
	// with the job's GPU UUIDs and must fail unless no memory is in use on them
	// (the agent checks through NVML, retrying while the driver frees it).
	GPUMemoryFree func(ctx context.Context, uuids []string) error
	// RequireDigest accepts only images pinned by digest: "repo@sha256:<64 hex>".
	RequireDigest bool
	// PullIfMissing pulls an image not on the host; when false such a job fails.
	PullIfMissing bool
	// Network is the container's network: "none" (the default, no network) or
	// a Docker network name. "host" and "container:…" are refused.
	Network string
	// Egress is the network of jobs with EgressMbps > 0 (NewEgressNetwork);
	// nil: such jobs are refused with ErrNoEgress. Jobs without egress have
	// no network at all.
	Egress *EgressNetwork
	// Service is the network of jobs with a ServicePort (NewServiceNetwork),
	// where the agent's ingress reaches them; nil: such jobs are refused
	// with ErrNoService.
	Service *ServiceNetwork
	// DeviceRequests asks the daemon for the leased GPUs through the NVIDIA
	// container runtime (DeviceRequests by UUID, like `docker run --gpus`).
	// Set it where that runtime is installed; without it the daemon refuses
	// such containers, so tests on machines without GPUs leave it false and
	// the job only gets the environment variables naming its GPUs.
	DeviceRequests bool
	// PidsLimit bounds the processes in a container. 0: DefaultPidsLimit;
	// below 0: none (LimitPids must then be in Unlimited).
	PidsLimit int64
	// CPUCoresPerGPU, MemoryBytesPerGPU and DiskBytesPerGPU are what a job
	// gets per leased GPU (what the offer publishes), unless the spec says
	// otherwise: CPU quota cores × GPUs, memory with no swap, and disk: the
	// bytes it writes to its /scratch, its writable mounts and (with
	// AllowRoot) its writable layer, held by the disk watchdog, and the
	// writable layer's size where the storage driver can also bound it.
	// 0: no limit, only where Unlimited names it.
	CPUCoresPerGPU    uint32
	MemoryBytesPerGPU int64
	DiskBytesPerGPU   int64
	// MaxImageBytes bounds the disk the images of this runner's jobs take:
	// after each job the least recently used ones no running job uses are
	// removed until they fit. 0: images are never removed (only where
	// Unlimited names LimitImages).
	MaxImageBytes int64
	// LogMaxSize and LogMaxFiles bound the daemon's json-file log of a
	// container (its copy in LogDir is the agent's). "": DefaultLogMaxSize;
	// 0: DefaultLogMaxFiles.
	LogMaxSize  string
	LogMaxFiles int
}

const (
	// DefaultLogMaxSize is the size of one json-file log of a job's container.
	DefaultLogMaxSize = "50m"
	// DefaultLogMaxFiles is how many of them are kept.
	DefaultLogMaxFiles = 3
	// DefaultShmBytes is a job's /dev/shm when no memory limit sizes it.
	DefaultShmBytes = 1 << 30
)

// DefaultDockerOptions are the production options: digests required, images
// pulled, GPUs requested, no network.
func DefaultDockerOptions(logDir string) DockerOptions {
	return DockerOptions{LogDir: logDir, Grace: 10 * time.Second, RequireDigest: true,
		PullIfMissing: true, Network: "none", DeviceRequests: true, PidsLimit: DefaultPidsLimit}
}

// Docker runs each job in its own container through the Docker Engine API:
// the image pinned by digest, only the leased GPUs exposed, no privileges,
// an unprivileged user on a read-only root (docker_sandbox.go), no host
// network, CPU/memory/shm/pids limits and a disk watchdog, output attached
// into a bounded log ring under LogDir, and the container and its scratch
// removed (and the GPUs' memory checked free) when the job ends.
type Docker struct {
	cli  DockerAPI
	opts DockerOptions
	// noStorageOpt is set once the daemon refused a writable-layer size
	// (overlay2 needs xfs mounted with pquota): later jobs go without it.
	noStorageOpt atomic.Bool
	// images are the images this runner's jobs used (by image id), for the
	// least-recently-used collection.
	images imageCache
}

// NewDocker returns a docker runner over cli, e.g.
// client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation()).
func NewDocker(cli DockerAPI, opts DockerOptions) *Docker {
	if opts.Grace <= 0 {
		opts.Grace = 10 * time.Second
	}
	if opts.Network == "" {
		opts.Network = "none"
	}
	if opts.PidsLimit == 0 {
		opts.PidsLimit = DefaultPidsLimit
	}
	if opts.LogMaxSize == "" {
		opts.LogMaxSize = DefaultLogMaxSize
	}
	if opts.LogMaxFiles == 0 {
		opts.LogMaxFiles = DefaultLogMaxFiles
	}
	if opts.LogMaxBytes == 0 {
		opts.LogMaxBytes = DefaultLogMaxBytes
	}
	if opts.DiskCheckInterval <= 0 {
		opts.DiskCheckInterval = DefaultDiskCheckInterval
	}
	return &Docker{cli: cli, opts: opts}
}

// NewDockerFromEnv returns a docker runner talking to the daemon named by the
// environment (DOCKER_HOST etc., else the local socket), negotiating the API
// version down to the daemon's. It refuses options that leave a limit at 0
// without naming it in Unlimited (CheckLimits).
func NewDockerFromEnv(opts DockerOptions) (*Docker, error) {
	if err := opts.CheckLimits(); err != nil {
		return nil, err
	}
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, err
	}
	return NewDocker(cli, opts), nil
}

// Close closes the client if it can be closed.
func (d *Docker) Close() error {
	var errs []error
	if d.opts.Egress != nil {
		// Kept while jobs are attached (they are adopted on restart).
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		errs = append(errs, d.opts.Egress.Close(ctx))
		cancel()
	}
	if d.opts.Service != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		errs = append(errs, d.opts.Service.Close(ctx))
		cancel()
	}
	if c, ok := d.cli.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// Name implements Runner.
func (d *Docker) Name() string { return "docker" }

// ContainerName is the name of a lease's container.
func ContainerName(leaseID uint64) string { return fmt.Sprintf("idlegpu-lease-%d", leaseID) }

// Start implements Runner. A container of the same name left by a crashed
// agent is removed first: the daemon calls Adopt for the leases it was
// running, so a container still there when Start is called is not to be
// kept, and the lease's job is started afresh (its log ring and scratch
// are kept and appended to). An empty Command runs the image's own;
// otherwise, as with `docker run IMAGE CMD…`, it replaces the image's CMD
// and is passed to its ENTRYPOINT, if any.
func (d *Docker) Start(ctx context.Context, spec Spec) (Job, error) {
	if spec.ImageDigest != "" {
		pinned, err := PinnedImage(spec.Image, spec.ImageDigest)
		if err != nil {
			return nil, err
		}
		spec.Image = pinned
	}
	if err := d.validate(spec); err != nil {
		return nil, err
	}
	spec = d.withLimits(spec)
	if err := d.opts.checkSpecLimits(spec); err != nil {
		return nil, err
	}
	imageID, err := d.ensureImage(ctx, spec.Image)
	if err != nil {
		return nil, err
	}
	name := ContainerName(spec.LeaseID)
	if err := removeContainer(ctx, d.cli, name); err != nil {
		return nil, fmt.Errorf("remove leftover container %s: %w", name, err)
	}
	if err := d.prepareSandbox(spec); err != nil {
		return nil, err
	}
	ring, err := openLogRing(d.leaseDir(spec.LeaseID), d.opts.LogMaxBytes)
	if err != nil {
		return nil, fmt.Errorf("log of lease %d: %w", spec.LeaseID, err)
	}
	config, hostConfig := d.containerConfig(spec)
	created, err := d.create(ctx, config, hostConfig, name)
	if err != nil {
		ring.Close()
		return nil, fmt.Errorf("create container for lease %d: %w", spec.LeaseID, err)
	}
	j := d.newJob(ctx, spec, created.ID, ring)
	fail := func(err error) (Job, error) {
		j.cancel()
		ring.Close()
		_ = removeContainer(context.WithoutCancel(ctx), d.cli, created.ID)
		return nil, err
	}
	if err := d.connectService(ctx, spec, created.ID); err != nil {
		return fail(err)
	}
	// Attached before it starts: every byte it writes comes through this
	// stream, and a slow copy holds the job's writes back instead of
	// losing them to the daemon's log rotation.
	stream, err := d.attach(j.ctx, created.ID)
	if err != nil {
		return fail(fmt.Errorf("attach to the container of lease %d: %w", spec.LeaseID, err))
	}
	if err := d.cli.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		stream.Close()
		return fail(fmt.Errorf("start container for lease %d: %w", spec.LeaseID, err))
	}
	if err := d.shapeEgress(ctx, spec, created.ID); err != nil {
		stream.Close()
		return fail(err)
	}
	j.run(stream, d.diskWatch(spec))
	d.useImage(j, imageID)
	return j, nil
}

// Adopt implements Runner: the lease's container (by name, and carrying the
// lease's LeaseLabel), if it is running. Its output is appended to the
// lease's log ring again from now on (what it printed while no agent was
// attached is in the daemon's json-file log only), its disk watched, and
// it is waited for, stopped and cleaned up as a started job. A container
// of the lease that has exited is removed (with its scratch, and the GPUs'
// memory checked) and ErrNotRunning returned; a cleanup failure is joined
// to it.
func (d *Docker) Adopt(ctx context.Context, spec Spec) (Job, error) {
	name := ContainerName(spec.LeaseID)
	info, err := d.cli.ContainerInspect(ctx, name)
	if cerrdefs.IsNotFound(err) {
		return nil, fmt.Errorf("lease %d: no container %s: %w", spec.LeaseID, name, ErrNotRunning)
	}
	if err != nil {
		return nil, fmt.Errorf("inspect container %s: %w", name, err)
	}
	lease := strconv.FormatUint(spec.LeaseID, 10)
	if info.ContainerJSONBase == nil || info.Config == nil || info.Config.Labels[LeaseLabel] != lease {
		// Not one this runner made for the lease: left alone.
		return nil, fmt.Errorf("lease %d: container %s is not labelled %s=%s: %w", spec.LeaseID, name, LeaseLabel, lease, ErrNotRunning)
	}
	spec = d.withLimits(spec)
	if info.State == nil || !info.State.Running {
		j := d.newJob(ctx, spec, info.ID, nil)
		j.cancel()
		ended := fmt.Errorf("lease %d: container %s is not running (%s, exit code %d): %w",
			spec.LeaseID, name, containerStatus(info.State), containerExitCode(info.State), ErrNotRunning)
		if err := j.cleanup(ctx); err != nil {
			return nil, errors.Join(ended, err)
		}
		return nil, ended
	}
	ring, err := openLogRing(d.leaseDir(spec.LeaseID), d.opts.LogMaxBytes)
	if err != nil {
		return nil, fmt.Errorf("log of lease %d: %w", spec.LeaseID, err)
	}
	j := d.newJob(ctx, spec, info.ID, ring)
	// Attaching to a running container streams from now on: what the
	// earlier agent copied is not copied twice.
	stream, err := d.attach(j.ctx, info.ID)
	if err != nil {
		j.cancel()
		ring.Close()
		return nil, fmt.Errorf("attach to the container of lease %d: %w", spec.LeaseID, err)
	}
	// Shaped again from its label: an agent that died between starting
	// the container and shaping it left it unshaped (re-applying replaces
	// the shapers). A job that cannot be shaped does not run on unshaped.
	if spec.EgressMbps, err = egressOfLabel(info.Config.Labels); err == nil {
		err = d.shapeEgress(ctx, spec, info.ID)
	}
	if err != nil {
		j.run(stream, nil)
		serr := j.Stop(context.WithoutCancel(ctx))
		return nil, errors.Join(fmt.Errorf("lease %d: its job stopped: %w: %w", spec.LeaseID, err, ErrNotRunning), serr)
	}
	j.run(stream, d.diskWatch(spec))
	d.useImage(j, info.Image)
	return j, nil
}

// attach opens the container's stdout and stderr, multiplexed.
func (d *Docker) attach(ctx context.Context, id string) (io.ReadCloser, error) {
	resp, err := d.cli.ContainerAttach(ctx, id, container.AttachOptions{Stream: true, Stdout: true, Stderr: true})
	if err != nil {
		return nil, err
	}
	return attachStream{resp: resp}, nil
}

// attachStream is an attach connection as an io.ReadCloser.
type attachStream struct{ resp types.HijackedResponse }

func (a attachStream) Read(p []byte) (int, error) { return a.resp.Reader.Read(p) }

func (a attachStream) Close() error {
	a.resp.Close()
	return nil
}

// diskWatch is the watchdog of a job's disk limit (none without one).
func (d *Docker) diskWatch(spec Spec) *diskWatch {
	if spec.DiskBytes <= 0 {
		return nil
	}
	return &diskWatch{dirs: d.writableDirs(spec), rootfs: spec.AllowRoot, limit: spec.DiskBytes, interval: d.opts.DiskCheckInterval}
}

func containerStatus(s *container.State) string {
	if s == nil || s.Status == "" {
		return "unknown state"
	}
	return s.Status
}

func containerExitCode(s *container.State) int {
	if s == nil {
		return -1
	}
	return s.ExitCode
}

// newJob is the job of a lease's container; run starts following it.
func (d *Docker) newJob(ctx context.Context, spec Spec, id string, ring *logRing) *dockerJob {
	// The job outlives the request that started it.
	jobCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	return &dockerJob{cli: d.cli, id: id, leaseID: spec.LeaseID, gpus: append([]string(nil), spec.GPUs...),
		ring: ring, logDir: d.leaseDir(spec.LeaseID), scratch: d.scratchDir(spec.LeaseID),
		grace: d.opts.Grace, hook: d.opts.GPUMemoryFree,
		ctx: jobCtx, cancel: cancel, jobEnd: newJobEnd(), logsDone: make(chan struct{}), exited: make(chan struct{})}
}

// validate refuses specs and options that would break the job's isolation.
func (d *Docker) validate(spec Spec) error {
	if err := validateNetwork(d.opts.Network); err != nil {
		return err
	}
	if err := d.validateEgress(spec); err != nil {
		return err
	}
	if spec.ServicePort > 0 && d.opts.Service == nil {
		return fmt.Errorf("%w: lease %d serves on port %d", ErrNoService, spec.LeaseID, spec.ServicePort)
	}
	if err := validateImage(spec.Image, d.opts.RequireDigest); err != nil {
		return err
	}
	switch {
	case math.IsNaN(spec.CPUs) || math.IsInf(spec.CPUs, 0) || spec.CPUs < 0 || spec.CPUs > 1e6:
		return fmt.Errorf("%w: lease %d asks for %v CPUs", ErrInvalidSpec, spec.LeaseID, spec.CPUs)
	case spec.MemoryBytes < 0 || spec.ShmBytes < 0 || spec.DiskBytes < 0:
		return fmt.Errorf("%w: lease %d has a negative memory or shm size", ErrInvalidSpec, spec.LeaseID)
	}
	if err := validateMounts(spec); err != nil {
		return err
	}
	return spec.validateGPUsAndEnv()
}

// validateNetwork refuses the host's network and other containers' network
// namespaces: a job may have no network or a Docker network of its own.
func validateNetwork(mode string) error {
	m := container.NetworkMode(strings.ToLower(mode))
	if m.IsHost() || m.IsContainer() {
		return fmt.Errorf("%w: network %q shares another network namespace", ErrInvalidSpec, mode)
	}
	return nil
}

// containerConfig builds the container's configuration from the spec.
func (d *Docker) containerConfig(spec Spec) (*container.Config, *container.HostConfig) {
	lease := strconv.FormatUint(spec.LeaseID, 10)
	stopTimeout := graceSeconds(d.opts.Grace)
	config := &container.Config{
		Image:       spec.Image,
		Cmd:         spec.Command,
		Env:         spec.leaseEnv(),
		Labels:      map[string]string{LeaseLabel: lease},
		StopTimeout: &stopTimeout,
	}
	if spec.EgressMbps > 0 {
		config.Labels[EgressLabel] = strconv.FormatUint(uint64(spec.EgressMbps), 10)
	}
	if spec.ServicePort > 0 {
		config.Labels[ServiceLabel] = strconv.FormatUint(uint64(spec.ServicePort), 10)
	}
	pids := d.opts.PidsLimit
	hostConfig := &container.HostConfig{
		NetworkMode: d.networkMode(spec),
		Privileged:  false,
		CapDrop:     []string{"ALL"},
		SecurityOpt: []string{"no-new-privileges"},
		ShmSize:     spec.ShmBytes,
		LogConfig: container.LogConfig{Type: "json-file", Config: map[string]string{
			"max-size": d.opts.LogMaxSize, "max-file": strconv.Itoa(d.opts.LogMaxFiles)}},
		Resources: container.Resources{
			NanoCPUs:  int64(math.Round(spec.CPUs * 1e9)),
			Memory:    spec.MemoryBytes,
			PidsLimit: &pids,
		},
	}
	if spec.MemoryBytes > 0 {
		// No swap beyond the memory limit.
		hostConfig.MemorySwap = spec.MemoryBytes
	}
	if hostConfig.ShmSize == 0 {
		// /dev/shm is memory: sized within the limit, not Docker's 64 MiB.
		hostConfig.ShmSize = memoryShare(spec)
	}
	if spec.DiskBytes > 0 {
		hostConfig.StorageOpt = map[string]string{"size": strconv.FormatInt(spec.DiskBytes, 10)}
	}
	if d.opts.DeviceRequests && len(spec.GPUs) > 0 {
		hostConfig.DeviceRequests = []container.DeviceRequest{{
			Driver:       "nvidia",
			DeviceIDs:    append([]string(nil), spec.GPUs...),
			Capabilities: [][]string{{"gpu"}},
		}}
	}
	d.sandbox(spec, config, hostConfig)
	return config, hostConfig
}

// withLimits fills the spec's unset limits from the per-GPU options.
func (d *Docker) withLimits(spec Spec) Spec {
	n := int64(len(spec.GPUs))
	if spec.CPUs == 0 && d.opts.CPUCoresPerGPU > 0 {
		spec.CPUs = float64(int64(d.opts.CPUCoresPerGPU) * max(n, 1))
	}
	if spec.MemoryBytes == 0 && d.opts.MemoryBytesPerGPU > 0 {
		spec.MemoryBytes = d.opts.MemoryBytesPerGPU * max(n, 1)
	}
	if spec.DiskBytes == 0 && d.opts.DiskBytesPerGPU > 0 {
		spec.DiskBytes = d.opts.DiskBytesPerGPU * max(n, 1)
	}
	return spec
}

// create makes the container; a daemon that cannot bound the writable
// layer (overlay2 not on xfs with pquota) is asked again without the size,
// and the runner says so once and stops asking.
func (d *Docker) create(ctx context.Context, config *container.Config, hc *container.HostConfig, name string) (container.CreateResponse, error) {
	if d.noStorageOpt.Load() {
		hc.StorageOpt = nil
	}
	created, err := d.cli.ContainerCreate(ctx, config, hc, nil, nil, name)
	if err != nil && hc.StorageOpt != nil && strings.Contains(strings.ToLower(err.Error()), "storage-opt") {
		d.noStorageOpt.Store(true)
		slog.Warn("docker runner: the storage driver cannot bound a container's writable layer (overlay2 needs xfs mounted with pquota); the disk watchdog alone bounds jobs' disk use",
			"err", err)
		hc.StorageOpt = nil
		created, err = d.cli.ContainerCreate(ctx, config, hc, nil, nil, name)
	}
	return created, err
}

// graceSeconds rounds a grace period up to Docker's whole seconds.
func graceSeconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}

// removeContainer force-removes a container and its anonymous volumes; one
// already gone is not an error.
func removeContainer(ctx context.Context, cli DockerAPI, id string) error {
	// Another removal under way (the job's own exit and a Stop, or an
	// operator's docker rm) is waited for rather than reported: the caller
	// goes on to delete what the container used.
	deadline := time.Now().Add(removalWait)
	for {
		err := cli.ContainerRemove(ctx, id, container.RemoveOptions{Force: true, RemoveVolumes: true})
		if err == nil || cerrdefs.IsNotFound(err) {
			return nil
		}
		if !cerrdefs.IsConflict(err) || !strings.Contains(err.Error(), "already in progress") || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (waiting for it: %w)", err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// removalWait bounds the wait for another caller's removal of a container.
// A forced removal kills and deletes at once (well under a second in the
// runner's tests); the bound only keeps a wedged daemon from holding the
// caller for ever.
const removalWait = 30 * time.Second

// ErrImageMissing is returned when an image is not on the host and pulling is off.
var ErrImageMissing = errors.New("image not on this host and pulling is off")
