package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	timetypes "github.com/docker/docker/api/types/time"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// fakeDocker is an in-memory Docker daemon: enough of the Engine API for the
// docker runner's tests where no daemon can run. Images are all present;
// containers run until the test makes them exit (exit) or they are stopped
// (they ignore SIGTERM, so exit 137) or force-removed; their output is what
// the test prints into them (print), with the timestamps Logs' Since filters.
type fakeDocker struct {
	mu         sync.Mutex
	containers map[string]*fakeContainer // by id
	next       int
	// removing is how many more removals answer that another one is
	// under way, as Docker does while it removes the container.
	removing int
}

type fakeContainer struct {
	id, name string
	labels   map[string]string
	pid      int
	started  bool
	running  bool
	exitCode int
	lines    []fakeLine
	// changed is closed and replaced on each line and on exit.
	changed chan struct{}
	exited  chan struct{}
}

type fakeLine struct {
	at     time.Time
	stream stdcopy.StdType
	text   string
}

var _ DockerAPI = (*fakeDocker)(nil)

func newFakeDocker() *fakeDocker { return &fakeDocker{containers: map[string]*fakeContainer{}} }

// find looks a container up by id or name; the caller holds mu.
func (f *fakeDocker) find(idOrName string) (*fakeContainer, error) {
	for _, c := range f.containers {
		if c.id == idOrName || c.name == idOrName {
			return c, nil
		}
	}
	return nil, fmt.Errorf("%w: no such container: %s", cerrdefs.ErrNotFound, idOrName)
}

// create adds a container as a test's setup: running or exited with code.
func (f *fakeDocker) create(name string, labels map[string]string, running bool, code int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.newContainer(name, labels)
	c.started = true
	c.running = true
	if !running {
		c.end(code)
	}
}

// newContainer adds a created container; the caller holds mu.
func (f *fakeDocker) newContainer(name string, labels map[string]string) *fakeContainer {
	f.next++
	c := &fakeContainer{id: fmt.Sprintf("%064x", f.next), name: name, labels: labels, pid: 40000 + f.next,
		changed: make(chan struct{}), exited: make(chan struct{})}
	f.containers[c.id] = c
	return c
}

// end records the exit; the caller holds mu.
func (c *fakeContainer) end(code int) {
	if !c.running {
		return
	}
	c.running = false
	c.exitCode = code
	close(c.exited)
	close(c.changed)
	c.changed = make(chan struct{})
}

// print makes a running container write text to stdout.
func (f *fakeDocker) print(name, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.find(name)
	if err != nil || !c.running {
		panic(fmt.Sprintf("print to %s: not running", name))
	}
	c.lines = append(c.lines, fakeLine{at: time.Now(), stream: stdcopy.Stdout, text: text})
	close(c.changed)
	c.changed = make(chan struct{})
}

// exit makes a container's main process exit with code.
func (f *fakeDocker) exit(name string, code int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, err := f.find(name); err == nil {
		c.end(code)
	}
}

// state is "missing", "running" or "exited".
func (f *fakeDocker) state(name string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.find(name)
	switch {
	case err != nil:
		return "missing"
	case c.running:
		return "running"
	}
	return "exited"
}

func (f *fakeDocker) ImageInspect(_ context.Context, ref string, _ ...client.ImageInspectOption) (image.InspectResponse, error) {
	return image.InspectResponse{ID: ref}, nil
}

func (f *fakeDocker) ImageList(context.Context, image.ListOptions) ([]image.Summary, error) {
	return nil, nil
}

func (f *fakeDocker) ImageRemove(context.Context, string, image.RemoveOptions) ([]image.DeleteResponse, error) {
	return nil, errors.New("fake docker: images are not removed")
}

func (f *fakeDocker) ImagePull(context.Context, string, image.PullOptions) (io.ReadCloser, error) {
	return nil, errors.New("fake docker: no registry")
}

func (f *fakeDocker) ContainerCreate(_ context.Context, config *container.Config, _ *container.HostConfig, _ *network.NetworkingConfig, _ *ocispec.Platform, name string) (container.CreateResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.find(name); err == nil {
		return container.CreateResponse{}, fmt.Errorf("%w: name %s in use", cerrdefs.ErrConflict, name)
	}
	return container.CreateResponse{ID: f.newContainer(name, config.Labels).id}, nil
}

func (f *fakeDocker) ContainerStart(_ context.Context, id string, _ container.StartOptions) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.find(id)
	if err != nil {
		return err
	}
	if c.started {
		return fmt.Errorf("%w: already started", cerrdefs.ErrConflict)
	}
	c.started, c.running = true, true
	return nil
}

// ContainerLogs streams, multiplexed as the daemon does, the lines from
// options.Since on, following them while the container runs if asked.
func (f *fakeDocker) ContainerLogs(ctx context.Context, id string, options container.LogsOptions) (io.ReadCloser, error) {
	var since time.Time
	if options.Since != "" {
		ts, err := timetypes.GetTimestamp(options.Since, time.Now())
		if err != nil {
			return nil, err
		}
		sec, nsec, err := timetypes.ParseTimestamps(ts, 0)
		if err != nil {
			return nil, err
		}
		since = time.Unix(sec, nsec)
	}
	f.mu.Lock()
	c, err := f.find(id)
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	go func() {
		sent := 0
		for {
			f.mu.Lock()
			lines, running, changed := c.lines[sent:], c.running, c.changed
			sent = len(c.lines)
			f.mu.Unlock()
			for _, l := range lines {
				if l.at.Before(since) {
					continue
				}
				if _, err := stdcopy.NewStdWriter(pw, l.stream).Write([]byte(l.text)); err != nil {
					return
				}
			}
			if !running || !options.Follow {
				pw.Close()
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				pw.CloseWithError(ctx.Err())
				return
			}
		}
	}()
	return pr, nil
}

// ContainerAttach streams, multiplexed, what the container prints from
// now on until it exits, over one end of a pipe as the daemon's hijacked
// connection does; closing the connection ends it.
func (f *fakeDocker) ContainerAttach(_ context.Context, id string, _ container.AttachOptions) (types.HijackedResponse, error) {
	f.mu.Lock()
	c, err := f.find(id)
	sent := 0
	if err == nil {
		sent = len(c.lines)
	}
	f.mu.Unlock()
	if err != nil {
		return types.HijackedResponse{}, err
	}
	agentEnd, daemonEnd := net.Pipe()
	go func() {
		defer daemonEnd.Close()
		for {
			f.mu.Lock()
			lines, running, started, changed := c.lines[sent:], c.running, c.started, c.changed
			sent = len(c.lines)
			f.mu.Unlock()
			for _, l := range lines {
				if _, err := stdcopy.NewStdWriter(daemonEnd, l.stream).Write([]byte(l.text)); err != nil {
					return
				}
			}
			if started && !running {
				return
			}
			select {
			case <-changed:
			case <-c.exited:
			}
		}
	}()
	return types.NewHijackedResponse(agentEnd, ""), nil
}

func (f *fakeDocker) ContainerWait(ctx context.Context, id string, _ container.WaitCondition) (<-chan container.WaitResponse, <-chan error) {
	resC, errC := make(chan container.WaitResponse, 1), make(chan error, 1)
	f.mu.Lock()
	c, err := f.find(id)
	f.mu.Unlock()
	if err != nil {
		errC <- err
		return resC, errC
	}
	go func() {
		select {
		case <-c.exited:
			f.mu.Lock()
			code := c.exitCode
			f.mu.Unlock()
			resC <- container.WaitResponse{StatusCode: int64(code)}
		case <-ctx.Done():
			errC <- ctx.Err()
		}
	}()
	return resC, errC
}

// ContainerStop kills the container: the fake ignores SIGTERM.
func (f *fakeDocker) ContainerStop(_ context.Context, id string, _ container.StopOptions) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.find(id)
	if err != nil {
		return err
	}
	c.end(137)
	return nil
}

func (f *fakeDocker) ContainerRemove(_ context.Context, id string, options container.RemoveOptions) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.find(id)
	if err != nil {
		return err
	}
	if c.running && !options.Force {
		return fmt.Errorf("%w: container %s is running", cerrdefs.ErrConflict, id)
	}
	if f.removing > 0 {
		f.removing--
		return fmt.Errorf("%w: removal of container %s is already in progress", cerrdefs.ErrConflict, c.id)
	}
	c.end(137)
	delete(f.containers, c.id)
	return nil
}

func (f *fakeDocker) ContainerInspectWithRaw(ctx context.Context, id string, _ bool) (container.InspectResponse, []byte, error) {
	info, err := f.ContainerInspect(ctx, id)
	return info, nil, err
}

func (f *fakeDocker) ContainerInspect(_ context.Context, id string) (container.InspectResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.find(id)
	if err != nil {
		return container.InspectResponse{}, err
	}
	st := &container.State{Status: container.StateCreated}
	switch {
	case c.running:
		st = &container.State{Status: container.StateRunning, Running: true, Pid: c.pid}
	case c.started:
		st = &container.State{Status: container.StateExited, ExitCode: c.exitCode}
	}
	return container.InspectResponse{
		ContainerJSONBase: &container.ContainerJSONBase{ID: c.id, Name: "/" + c.name, State: st},
		Config:            &container.Config{Labels: c.labels},
	}, nil
}

func (f *fakeDocker) ContainerTop(_ context.Context, id string, _ []string) (container.TopResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.find(id)
	if err != nil {
		return container.TopResponse{}, err
	}
	if !c.running {
		return container.TopResponse{}, fmt.Errorf("%w: container %s is not running", cerrdefs.ErrConflict, id)
	}
	return container.TopResponse{Titles: []string{"PID"}, Processes: [][]string{{strconv.Itoa(c.pid)}}}, nil
}

// errAgentKilled is what the calls of a killed agent's client return.
var errAgentKilled = errors.New("the agent was killed")

// killableAPI is the Docker client of an agent that gets SIGKILLed: after
// kill, its calls fail and the log streams and waits it had open break, while
// the daemon and its containers run on. The old agent's job goroutines then
// wind down without touching the containers (their removal fails), as if
// they had died with the process.
type killableAPI struct {
	DockerAPI
	dead context.Context
	kill context.CancelFunc
}

func newKillableAPI(api DockerAPI) *killableAPI {
	dead, kill := context.WithCancel(context.Background())
	return &killableAPI{DockerAPI: api, dead: dead, kill: kill}
}

// ctx is ctx, cancelled too when the agent is killed.
func (k *killableAPI) ctx(ctx context.Context) (context.Context, error) {
	if k.dead.Err() != nil {
		return nil, errAgentKilled
	}
	c, cancel := context.WithCancel(ctx)
	context.AfterFunc(k.dead, cancel)
	return c, nil
}

func (k *killableAPI) ImageInspect(ctx context.Context, ref string, opts ...client.ImageInspectOption) (image.InspectResponse, error) {
	ctx, err := k.ctx(ctx)
	if err != nil {
		return image.InspectResponse{}, err
	}
	return k.DockerAPI.ImageInspect(ctx, ref, opts...)
}

func (k *killableAPI) ImagePull(ctx context.Context, ref string, options image.PullOptions) (io.ReadCloser, error) {
	ctx, err := k.ctx(ctx)
	if err != nil {
		return nil, err
	}
	return k.DockerAPI.ImagePull(ctx, ref, options)
}

func (k *killableAPI) ContainerCreate(ctx context.Context, config *container.Config, hostConfig *container.HostConfig, networkingConfig *network.NetworkingConfig, platform *ocispec.Platform, name string) (container.CreateResponse, error) {
	ctx, err := k.ctx(ctx)
	if err != nil {
		return container.CreateResponse{}, err
	}
	return k.DockerAPI.ContainerCreate(ctx, config, hostConfig, networkingConfig, platform, name)
}

func (k *killableAPI) ContainerStart(ctx context.Context, id string, options container.StartOptions) error {
	ctx, err := k.ctx(ctx)
	if err != nil {
		return err
	}
	return k.DockerAPI.ContainerStart(ctx, id, options)
}

func (k *killableAPI) ContainerLogs(ctx context.Context, id string, options container.LogsOptions) (io.ReadCloser, error) {
	ctx, err := k.ctx(ctx)
	if err != nil {
		return nil, err
	}
	return k.DockerAPI.ContainerLogs(ctx, id, options)
}

func (k *killableAPI) ContainerAttach(ctx context.Context, id string, options container.AttachOptions) (types.HijackedResponse, error) {
	ctx, err := k.ctx(ctx)
	if err != nil {
		return types.HijackedResponse{}, err
	}
	resp, err := k.DockerAPI.ContainerAttach(ctx, id, options)
	if err == nil {
		// A killed agent's connections die with it.
		context.AfterFunc(k.dead, func() { resp.Conn.Close() })
	}
	return resp, err
}

func (k *killableAPI) ContainerInspectWithRaw(ctx context.Context, id string, getSize bool) (container.InspectResponse, []byte, error) {
	ctx, err := k.ctx(ctx)
	if err != nil {
		return container.InspectResponse{}, nil, err
	}
	return k.DockerAPI.ContainerInspectWithRaw(ctx, id, getSize)
}

func (k *killableAPI) ContainerWait(ctx context.Context, id string, condition container.WaitCondition) (<-chan container.WaitResponse, <-chan error) {
	ctx, err := k.ctx(ctx)
	if err != nil {
		errC := make(chan error, 1)
		errC <- err
		return nil, errC
	}
	return k.DockerAPI.ContainerWait(ctx, id, condition)
}

func (k *killableAPI) ContainerStop(ctx context.Context, id string, options container.StopOptions) error {
	ctx, err := k.ctx(ctx)
	if err != nil {
		return err
	}
	return k.DockerAPI.ContainerStop(ctx, id, options)
}

func (k *killableAPI) ContainerRemove(ctx context.Context, id string, options container.RemoveOptions) error {
	ctx, err := k.ctx(ctx)
	if err != nil {
		return err
	}
	return k.DockerAPI.ContainerRemove(ctx, id, options)
}

func (k *killableAPI) ContainerInspect(ctx context.Context, id string) (container.InspectResponse, error) {
	ctx, err := k.ctx(ctx)
	if err != nil {
		return container.InspectResponse{}, err
	}
	return k.DockerAPI.ContainerInspect(ctx, id)
}

func (k *killableAPI) ContainerTop(ctx context.Context, id string, arguments []string) (container.TopResponse, error) {
	ctx, err := k.ctx(ctx)
	if err != nil {
		return container.TopResponse{}, err
	}
	return k.DockerAPI.ContainerTop(ctx, id, arguments)
}

func (f *fakeDocker) NetworkConnect(context.Context, string, string, *network.EndpointSettings) error {
	return errors.New("fake docker: no networks")
}
