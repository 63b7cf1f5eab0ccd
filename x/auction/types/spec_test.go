package types_test

import (
	"strings"
	"testing"

	"github.com/distribution/reference"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

const (
	digestX = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	digestY = "sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
)

// validSpec is a SILVER training job that passes Validate with default params.
func validSpec() types.JobSpec {
	return types.JobSpec{
		Image: "ghcr.io/acme/train:1.4", ImageDigest: digestX,
		ManifestHash: strings.Repeat("ab", 32), Workload: offertypes.WORKLOAD_TRAINING, GpuCount: 2,
		Tier: types.TIER_SILVER, DurationSeconds: 3600, MaxPrice: sdk.NewInt64Coin("uusdc", 1_000_000),
	}
}

// TestJobSpecImageDigestMatches: the digest a reference pins is the digest
// the job is matched on (x/offer's image allowlist reads image_digest, the
// agent runs image), so the two must agree; a reference without a digest
// leaves image_digest as the only one.
func TestJobSpecImageDigestMatches(t *testing.T) {
	testCases := []struct {
		name   string
		image  string
		expErr string
	}{
		{name: "tag only", image: "ghcr.io/acme/train:1.4"},
		{name: "name only", image: "train"},
		{name: "registry port, tag, no digest", image: "localhost:5000/acme/train:v1"},
		{name: "pinned to image_digest", image: "ghcr.io/acme/train@" + digestX},
		{name: "tag and image_digest", image: "ghcr.io/acme/train:1.4@" + digestX},
		{name: "registry port and image_digest", image: "registry.example.com:5000/acme/train@" + digestX},
		{name: "registry port, tag and image_digest", image: "registry.example.com:5000/acme/train:1.4@" + digestX},

		{name: "pinned to another digest", image: "ghcr.io/acme/train@" + digestY,
			expErr: `image "ghcr.io/acme/train@` + digestY + `" is pinned to "` + digestY + `", not to image_digest "` + digestX + `"`},
		{name: "tag and another digest", image: "ghcr.io/acme/train:1.4@" + digestY,
			expErr: `is pinned to "` + digestY + `", not to image_digest`},
		{name: "registry port and another digest", image: "registry.example.com:5000/acme/train@" + digestY,
			expErr: `is pinned to "` + digestY + `", not to image_digest`},
		{name: "upper-case digest", image: "ghcr.io/acme/train@" + strings.ToUpper(digestX),
			expErr: "not to image_digest"},
		{name: "sha512 digest", image: "ghcr.io/acme/train@sha512:" + strings.Repeat("0", 128),
			expErr: `is pinned to "sha512:` + strings.Repeat("0", 128) + `", not to image_digest`},
		{name: "empty digest", image: "ghcr.io/acme/train@",
			expErr: `is pinned to "", not to image_digest`},
		{name: "two digests", image: "ghcr.io/acme/train@" + digestX + "@" + digestX,
			expErr: `is pinned to "` + digestX + "@" + digestX + `", not to image_digest`},
		{name: "digest without a name", image: "@" + digestX,
			expErr: `image "@` + digestX + `" has a digest but no name`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			s := validSpec()
			s.Image = tc.image
			err := s.Validate(types.DefaultParams())
			if tc.expErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, types.ErrInvalidImage)
			require.ErrorContains(t, err, tc.expErr)
		})
	}
}

// FuzzJobSpecImageDigest: whatever the image and image_digest, Validate
// never panics, and a spec it accepts never names two digests — neither by
// our reading of the reference nor by Docker's own parser, which the agent
// uses to pull.
func FuzzJobSpecImageDigest(f *testing.F) {
	f.Add("ghcr.io/acme/train:1.4@"+digestX, digestX)
	f.Add("ghcr.io/acme/train@"+digestY, digestX)
	f.Add("localhost:5000/train:v1", digestX)
	f.Add("docker.io/library/busybox@"+digestX+"@"+digestY, digestX)
	f.Add("@"+digestX, digestX)
	f.Fuzz(func(t *testing.T, image, digest string) {
		s := validSpec()
		s.Image, s.ImageDigest = image, digest
		if s.Validate(types.DefaultParams()) != nil {
			return
		}
		if _, pinned, ok := strings.Cut(image, "@"); ok {
			require.Equal(t, digest, pinned)
		}
		named, err := reference.ParseNormalizedNamed(image)
		if err != nil {
			return
		}
		if canonical, ok := named.(reference.Canonical); ok {
			require.Equal(t, digest, canonical.Digest().String())
		}
	})
}
