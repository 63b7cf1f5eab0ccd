package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/distribution/reference"
	"github.com/docker/docker/api/types/image"
	"github.com/opencontainers/go-digest"
)

// validateImage checks an image reference; with requireDigest only a
// reference pinned by a sha256 digest ("repo@sha256:<64 hex>", a tag beside
// the digest being ignored by Docker) is accepted, so what runs is exactly
// what the renter's manifest names.
func validateImage(ref string, requireDigest bool) error {
	if ref == "" {
		return fmt.Errorf("%w: no image", ErrInvalidSpec)
	}
	if !requireDigest {
		return nil
	}
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return fmt.Errorf("%w: image %q: %v", ErrInvalidSpec, ref, err)
	}
	canonical, ok := named.(reference.Canonical)
	if !ok {
		return fmt.Errorf("%w: image %q is not pinned by digest (want repo@sha256:<64 hex>)", ErrInvalidSpec, ref)
	}
	if d := canonical.Digest(); d.Algorithm() != digest.SHA256 || d.Validate() != nil {
		return fmt.Errorf("%w: image %q is not pinned by a sha256 digest", ErrInvalidSpec, ref)
	}
	return nil
}

// PinnedImage is the reference the docker runner runs for an image and the
// chain's digest: the image's repository (its tag or digest dropped) @
// digest. An image already pinned to another digest is refused: it names
// an image the chain never agreed to.
func PinnedImage(image, chainDigest string) (string, error) {
	d, err := digest.Parse(chainDigest)
	if err != nil || d.Algorithm() != digest.SHA256 {
		return "", fmt.Errorf("%w: chain digest %q is not a sha256 digest", ErrInvalidSpec, chainDigest)
	}
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return "", fmt.Errorf("%w: image %q: %v", ErrInvalidSpec, image, err)
	}
	if c, ok := named.(reference.Canonical); ok && c.Digest() != d {
		return "", fmt.Errorf("%w: image %q names digest %s, not the chain's %s", ErrInvalidSpec, image, c.Digest(), d)
	}
	pinned, err := reference.WithDigest(reference.TrimNamed(named), d)
	if err != nil {
		return "", fmt.Errorf("%w: image %q: %v", ErrInvalidSpec, image, err)
	}
	return pinned.String(), nil
}

// ensureImage makes sure the image is on the host, pulling it if allowed,
// and returns its id.
func (d *Docker) ensureImage(ctx context.Context, ref string) (string, error) {
	info, err := d.cli.ImageInspect(ctx, ref)
	if err == nil {
		return info.ID, nil
	}
	if !cerrdefs.IsNotFound(err) {
		return "", fmt.Errorf("inspect image %s: %w", ref, err)
	}
	if !d.opts.PullIfMissing {
		return "", fmt.Errorf("%w: %s", ErrImageMissing, ref)
	}
	rc, err := d.cli.ImagePull(ctx, ref, image.PullOptions{})
	if err != nil {
		return "", fmt.Errorf("pull image %s: %w", ref, err)
	}
	defer rc.Close()
	if err := pullError(rc); err != nil {
		return "", fmt.Errorf("pull image %s: %w", ref, err)
	}
	info, err = d.cli.ImageInspect(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("inspect pulled image %s: %w", ref, err)
	}
	return info.ID, nil
}

// pullError reads a pull's progress stream to its end and returns the error
// it reports, if any (a failed pull still answers 200).
func pullError(r io.Reader) error {
	dec := json.NewDecoder(r)
	for {
		var msg struct {
			Error       string `json:"error"`
			ErrorDetail *struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&msg); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if msg.ErrorDetail != nil && msg.ErrorDetail.Message != "" {
			return errors.New(msg.ErrorDetail.Message)
		}
		if msg.Error != "" {
			return errors.New(msg.Error)
		}
	}
}
