package runner

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/image"
)

// imageGCTimeout bounds one collection of images.
const imageGCTimeout = 2 * time.Minute

// imageCache is what the runner knows of its jobs' images: when each was
// last used and how many running jobs use it. Images it never ran (the
// host's own, or those of an earlier run of the agent) are not its to remove.
type imageCache struct {
	mu   sync.Mutex
	uses map[string]*imageUse
}

type imageUse struct {
	lastUsed time.Time
	running  int
}

// useImage counts a job's image as in use until the job ends, then collects.
func (d *Docker) useImage(j *dockerJob, id string) {
	if id == "" {
		return
	}
	c := &d.images
	c.mu.Lock()
	if c.uses == nil {
		c.uses = map[string]*imageUse{}
	}
	u := c.uses[id]
	if u == nil {
		u = &imageUse{}
		c.uses[id] = u
	}
	u.running++
	u.lastUsed = time.Now()
	c.mu.Unlock()
	go func() {
		<-j.Done()
		c.mu.Lock()
		u.running--
		u.lastUsed = time.Now()
		c.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), imageGCTimeout)
		defer cancel()
		if err := d.CollectImages(ctx); err != nil {
			slog.Warn("docker runner: image collection failed", "err", err)
		}
	}()
}

// CollectImages removes this runner's images, least recently used first,
// none that a running job uses, until they take at most MaxImageBytes.
func (d *Docker) CollectImages(ctx context.Context) error {
	if d.opts.MaxImageBytes <= 0 {
		return nil
	}
	list, err := d.cli.ImageList(ctx, image.ListOptions{})
	if err != nil {
		return err
	}
	type candidate struct {
		id       string
		size     int64
		lastUsed time.Time
	}
	var total int64
	var idle []candidate
	c := &d.images
	c.mu.Lock()
	for _, s := range list {
		u, ours := c.uses[s.ID]
		if !ours {
			continue
		}
		total += s.Size
		if u.running == 0 {
			idle = append(idle, candidate{id: s.ID, size: s.Size, lastUsed: u.lastUsed})
		}
	}
	c.mu.Unlock()
	slices.SortFunc(idle, func(a, b candidate) int {
		return cmp.Or(a.lastUsed.Compare(b.lastUsed), cmp.Compare(a.id, b.id))
	})
	for _, cand := range idle {
		if total <= d.opts.MaxImageBytes {
			break
		}
		c.mu.Lock()
		u := c.uses[cand.id]
		busy := u == nil || u.running > 0 // a job started with it meanwhile
		c.mu.Unlock()
		if busy {
			continue
		}
		if _, err := d.cli.ImageRemove(ctx, cand.id, image.RemoveOptions{PruneChildren: true}); err != nil && !cerrdefs.IsNotFound(err) {
			return err
		}
		c.mu.Lock()
		if u := c.uses[cand.id]; u != nil && u.running == 0 {
			delete(c.uses, cand.id)
		}
		c.mu.Unlock()
		total -= cand.size
		slog.Info("docker runner: removed a job image", "image", cand.id, "bytes", cand.size)
	}
	return nil
}
