package guides_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/guides"
)

func TestParse(t *testing.T) {
	src := "# Guide\n\n```sh\nnot marked\n```\n\n<!-- guide-test: renter -->\n```sh\na\nb\n```\n\ntext\n<!-- guide-test: provider -->\n```sh\nc\n```\n"
	blocks, err := guides.Parse("g.md", []byte(src))
	require.NoError(t, err)
	require.Equal(t, []guides.Block{
		{File: "g.md", Line: 8, Journey: "renter", Text: "a\nb"},
		{File: "g.md", Line: 15, Journey: "provider", Text: "c"},
	}, blocks)
}

func TestParseRefusesMarksThatWouldDropABlock(t *testing.T) {
	for name, src := range map[string]string{
		"mark over prose":        "<!-- guide-test: renter -->\ntext\n```sh\na\n```\n",
		"mark over another lang": "<!-- guide-test: renter -->\n```json\n{}\n```\n",
		"mark at the end":        "text\n<!-- guide-test: renter -->\n",
		"two marks":              "<!-- guide-test: renter -->\n<!-- guide-test: renter -->\n```sh\na\n```\n",
		"typo":                   "<!-- guide-test renter -->\n```sh\na\n```\n",
		"capitals":               "<!-- guide-test: Renter -->\n```sh\na\n```\n",
		"unclosed":               "<!-- guide-test: renter -->\n```sh\na\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := guides.Parse("g.md", []byte(src))
			require.Error(t, err)
			require.Contains(t, err.Error(), "g.md:")
		})
	}
}

func TestScriptNamesTheBlockThatFailed(t *testing.T) {
	s := guides.Script([]guides.Block{{File: "a.md", Line: 3, Text: "true"}, {File: "b.md", Line: 9, Text: "false"}})
	require.True(t, strings.HasPrefix(s, "set -euo pipefail\n"))
	require.Equal(t, "b.md:9", guides.FailedBlock("guide-block a.md:3\nout\nguide-block b.md:9\nerror\n"))
	require.Equal(t, "(before the first block)", guides.FailedBlock("nothing"))
}
