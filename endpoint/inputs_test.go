package endpoint_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/endpoint"
)

const sumA = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" // sha256("abc")

func TestValidateInputs(t *testing.T) {
	ok := endpoint.Input{URL: "https://data.example.com/train.csv?sig=x", SHA256: sumA, Path: "data/train.csv"}
	with := func(f func(*endpoint.Input)) []endpoint.Input { x := ok; f(&x); return []endpoint.Input{x} }
	many := make([]endpoint.Input, endpoint.MaxInputs+1)
	cases := []struct {
		name   string
		in     []endpoint.Input
		expErr string
	}{
		{"valid", []endpoint.Input{ok}, ""},
		{"none", nil, ""},
		{"too many", many, "65 inputs, at most 64"},
		{"ftp", with(func(x *endpoint.Input) { x.URL = "ftp://h/x" }), "http or https only"},
		{"file", with(func(x *endpoint.Input) { x.URL = "file:///etc/passwd" }), "http or https only"},
		{"credentials", with(func(x *endpoint.Input) { x.URL = "https://u:p@h/x" }), "credentials"},
		{"upper-case sha", with(func(x *endpoint.Input) { x.SHA256 = strings.ToUpper(sumA) }), "64 lower-case hex"},
		{"short sha", with(func(x *endpoint.Input) { x.SHA256 = sumA[:62] }), "64 lower-case hex"},
		{"absolute", with(func(x *endpoint.Input) { x.Path = "/etc/x" }), "absolute"},
		{"dotdot", with(func(x *endpoint.Input) { x.Path = "../x" }), "leaves its directory"},
		{"dotdot clean", with(func(x *endpoint.Input) { x.Path = ".." }), "leaves its directory"},
		{"unclean", with(func(x *endpoint.Input) { x.Path = "a//b" }), "not clean"},
		{"dot", with(func(x *endpoint.Input) { x.Path = "." }), "not clean"},
		{"empty", with(func(x *endpoint.Input) { x.Path = "" }), "1 to 255 bytes"},
		{"newline", with(func(x *endpoint.Input) { x.Path = "a\nb" }), "control character"},
		{"twice", []endpoint.Input{ok, ok}, `"data/train.csv" named twice`},
		{"file and dir", []endpoint.Input{ok, {URL: ok.URL, SHA256: sumA, Path: "data/train.csv/x"}}, `"data/train.csv" is a file and the directory of "data/train.csv/x"`},
	}
	for i := range many {
		many[i] = endpoint.Input{URL: ok.URL, SHA256: sumA, Path: strings.Repeat("a", i+1)}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := endpoint.ValidateInputs(tc.in)
			if tc.expErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.expErr)
		})
	}
}
