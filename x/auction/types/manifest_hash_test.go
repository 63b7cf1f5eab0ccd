package types_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

func TestManifestHash(t *testing.T) {
	require.Equal(t, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", types.ManifestHash(nil))
}
