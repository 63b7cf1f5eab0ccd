package endpoint

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const abcSHA256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

func TestParseManifestInputs(t *testing.T) {
	m, err := ParseManifest([]byte(`{"command":["sh","train.sh"],"inputs":[{"url":"https://data.example.com/t.csv","sha256":"` + abcSHA256 + `","path":"data/train.csv"}]}`))
	require.NoError(t, err)
	require.Equal(t, []Input{{URL: "https://data.example.com/t.csv", SHA256: abcSHA256, Path: "data/train.csv"}}, m.Inputs)

	in := func(fields string) string { return `{"command":["x"],"inputs":[{` + fields + `}]}` }
	for _, c := range []struct{ name, in, err string }{
		{"unknown key", in(`"url":"https://h/x","sha256":"` + abcSHA256 + `","path":"a","size":1`), `inputs: unknown field "size"`},
		{"case-folded key", in(`"URL":"https://h/x","sha256":"` + abcSHA256 + `","path":"a"`), `inputs: unknown field "URL"`},
		{"duplicate key", in(`"url":"https://h/x","url":"https://h/y","sha256":"` + abcSHA256 + `","path":"a"`), `inputs: duplicate key "url"`},
		{"missing sha256", in(`"url":"https://h/x","path":"a"`), "url, sha256 and path are all required"},
		{"traversal", in(`"url":"https://h/x","sha256":"` + abcSHA256 + `","path":"../../etc/passwd"`), "leaves its directory"},
		{"ftp", in(`"url":"ftp://h/x","sha256":"` + abcSHA256 + `","path":"a"`), "http or https only"},
		{"null", `{"command":["x"],"inputs":null}`, "inputs: expected an array of inputs"},
	} {
		_, err := ParseManifest([]byte(c.in))
		require.ErrorContains(t, err, c.err, c.name)
	}
}
