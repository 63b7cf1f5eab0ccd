package runner

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/stretchr/testify/require"
)

const (
	chainDigest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	otherDigest = "sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
)

// The image run is always the chain's digest: a tag or the same digest in
// the job's image is dropped, another digest is refused.
func TestPinnedImage(t *testing.T) {
	for image, want := range map[string]string{
		"ghcr.io/acme/train":                   "ghcr.io/acme/train@" + chainDigest,
		"ghcr.io/acme/train:v1":                "ghcr.io/acme/train@" + chainDigest,
		"ghcr.io/acme/train:v1@" + chainDigest: "ghcr.io/acme/train@" + chainDigest,
		"busybox":                              "docker.io/library/busybox@" + chainDigest,
		"registry.local:5000/x/y:latest":       "registry.local:5000/x/y@" + chainDigest,
		"ghcr.io/acme/train@" + chainDigest:    "ghcr.io/acme/train@" + chainDigest,
	} {
		got, err := PinnedImage(image, chainDigest)
		require.NoError(t, err, image)
		require.Equal(t, want, got, image)
	}
	for _, image := range []string{"ghcr.io/acme/train@" + otherDigest, "ghcr.io/acme/train:v1@" + otherDigest, "not a ref!", ""} {
		_, err := PinnedImage(image, chainDigest)
		require.ErrorIs(t, err, ErrInvalidSpec, image)
	}
	_, err := PinnedImage("ghcr.io/acme/train", "sha256:0123")
	require.ErrorIs(t, err, ErrInvalidSpec, "a malformed chain digest")
}

// createRecorder is the fake daemon recording what containers are created
// with; refuseStorageOpt answers a size as overlay2 off xfs+pquota does.
type createRecorder struct {
	*fakeDocker
	refuseStorageOpt bool

	mu      sync.Mutex
	images  []string
	configs []*container.HostConfig
}

func (r *createRecorder) ContainerCreate(ctx context.Context, config *container.Config, hc *container.HostConfig, nc *network.NetworkingConfig, p *ocispec.Platform, name string) (container.CreateResponse, error) {
	r.mu.Lock()
	copied := *hc
	r.images = append(r.images, config.Image)
	r.configs = append(r.configs, &copied)
	r.mu.Unlock()
	if r.refuseStorageOpt && hc.StorageOpt != nil {
		return container.CreateResponse{}, errors.New("Error response from daemon: --storage-opt is supported only for overlay over xfs with 'pquota' mount option")
	}
	return r.fakeDocker.ContainerCreate(ctx, config, hc, nc, p, name)
}

// A job runs repo@<chain digest> with its per-GPU share of CPU, memory (no
// swap), /dev/shm, disk and pids, and bounded daemon logs; a daemon that
// cannot bound the disk gets the job without it, and is not asked again.
func TestDockerEnforcesLimitsAndTheChainDigest(t *testing.T) {
	rec := &createRecorder{fakeDocker: newFakeDocker(), refuseStorageOpt: true}
	opts := DockerOptions{LogDir: t.TempDir(), Grace: time.Second, RequireDigest: true,
		CPUCoresPerGPU: 8, MemoryBytesPerGPU: 64 << 30, DiskBytesPerGPU: 100 << 30, Unlimited: []string{LimitImages}}
	d := NewDocker(rec, opts)
	ctx := context.Background()

	j, err := d.Start(ctx, Spec{LeaseID: 1, Image: "ghcr.io/acme/train:v1", ImageDigest: chainDigest,
		GPUs: []string{"GPU-a", "GPU-b"}, Command: []string{"true"}})
	require.NoError(t, err)
	require.NoError(t, j.Stop(ctx))
	require.Equal(t, []string{"ghcr.io/acme/train@" + chainDigest, "ghcr.io/acme/train@" + chainDigest}, rec.images,
		"asked with the disk size, then again without it")
	with, without := rec.configs[0], rec.configs[1]
	require.Equal(t, map[string]string{"size": "214748364800"}, with.StorageOpt, "100 GiB per GPU × 2")
	require.Nil(t, without.StorageOpt)
	for _, hc := range []*container.HostConfig{with, without} {
		require.Equal(t, int64(16e9), hc.NanoCPUs, "8 cores per GPU × 2")
		require.Equal(t, int64(128<<30), hc.Memory)
		require.Equal(t, int64(128<<30), hc.MemorySwap, "no swap")
		require.Equal(t, int64(2<<30), hc.ShmSize, "1 GiB of /dev/shm per GPU, within a quarter of the memory")
		require.Equal(t, int64(DefaultPidsLimit), *hc.PidsLimit)
		require.Equal(t, container.LogConfig{Type: "json-file", Config: map[string]string{"max-size": "50m", "max-file": "3"}}, hc.LogConfig)
	}

	j, err = d.Start(ctx, Spec{LeaseID: 2, Image: "ghcr.io/acme/train", ImageDigest: chainDigest, GPUs: []string{"GPU-a"}, Command: []string{"true"}})
	require.NoError(t, err)
	require.NoError(t, j.Stop(ctx))
	require.Len(t, rec.configs, 3, "the daemon is not asked for a disk size again")
	require.Nil(t, rec.configs[2].StorageOpt)

	// An image naming another digest than the chain's never runs.
	_, err = d.Start(ctx, Spec{LeaseID: 3, Image: "ghcr.io/acme/train@" + otherDigest, ImageDigest: chainDigest, GPUs: []string{"GPU-a"}, Command: []string{"true"}})
	require.ErrorIs(t, err, ErrInvalidSpec)
	require.Len(t, rec.configs, 3)

	// Where the driver bounds the writable layer, the size stays.
	rec2 := &createRecorder{fakeDocker: newFakeDocker()}
	j, err = NewDocker(rec2, opts).Start(ctx, Spec{LeaseID: 4, Image: "acme/x", ImageDigest: chainDigest, GPUs: []string{"GPU-a"}, Command: []string{"true"}})
	require.NoError(t, err)
	require.NoError(t, j.Stop(ctx))
	require.Len(t, rec2.configs, 1)
	require.Equal(t, map[string]string{"size": "107374182400"}, rec2.configs[0].StorageOpt)
	require.Equal(t, int64(1<<30), rec2.configs[0].ShmSize, "1 GiB of /dev/shm for one GPU")
}

// imageStore is a fake daemon's images: ImageInspect answers a ref's id,
// ImageList their sizes, ImageRemove records and drops.
type imageStore struct {
	*fakeDocker
	mu      sync.Mutex
	ids     map[string]string // ref → id
	sizes   map[string]int64  // id → bytes
	removed []string
}

func (s *imageStore) ImageInspect(_ context.Context, ref string, _ ...client.ImageInspectOption) (image.InspectResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return image.InspectResponse{ID: s.ids[ref]}, nil
}

func (s *imageStore) ImageList(context.Context, image.ListOptions) ([]image.Summary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []image.Summary
	for id, size := range s.sizes {
		out = append(out, image.Summary{ID: id, Size: size})
	}
	return out, nil
}

func (s *imageStore) ImageRemove(_ context.Context, id string, _ image.RemoveOptions) ([]image.DeleteResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.removed = append(s.removed, id)
	delete(s.sizes, id)
	return nil, nil
}

func (s *imageStore) Removed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.removed)
}

// Images of ended jobs are removed least recently used first until they fit
// max_image_bytes; the image of a running job and the host's own images stay.
func TestDockerCollectsImagesLeastRecentlyUsed(t *testing.T) {
	ref := func(repo string) string { return "docker.io/acme/" + repo + "@" + chainDigest }
	store := &imageStore{fakeDocker: newFakeDocker(),
		ids:   map[string]string{ref("a"): "id-a", ref("b"): "id-b", ref("c"): "id-c"},
		sizes: map[string]int64{"id-a": 40, "id-b": 40, "id-c": 40, "id-host": 1000}}
	d := NewDocker(store, limited(DockerOptions{LogDir: t.TempDir(), Grace: time.Second, MaxImageBytes: 50}))
	ctx := context.Background()
	start := func(lease uint64, repo string) Job {
		j, err := d.Start(ctx, Spec{LeaseID: lease, Image: "acme/" + repo, ImageDigest: chainDigest, GPUs: []string{"GPU-a"}, Command: []string{"true"}})
		require.NoError(t, err)
		return j
	}
	a, b, c := start(1, "a"), start(2, "b"), start(3, "c")
	require.NoError(t, a.Stop(ctx))
	// a is idle but b and c run: 120 bytes, a's removal leaves 80, still over, nothing more may go.
	require.Eventually(t, func() bool { return slices.Equal(store.Removed(), []string{"id-a"}) }, 2*time.Second, 5*time.Millisecond)
	require.NoError(t, c.Stop(ctx))
	// c idle, b running: 80 → 40 once c goes.
	require.Eventually(t, func() bool { return slices.Equal(store.Removed(), []string{"id-a", "id-c"}) }, 2*time.Second, 5*time.Millisecond)
	require.NoError(t, b.Stop(ctx))
	time.Sleep(50 * time.Millisecond)
	require.Equal(t, []string{"id-a", "id-c"}, store.Removed(), "40 bytes fit; the host's own image is never the runner's to remove")
}
