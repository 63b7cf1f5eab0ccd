package jobdata_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/jobdata"
)

const sumA = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" // sha256("abc")

func TestValidateInputs(t *testing.T) {
	ok := jobdata.Input{URL: "https://data.example.com/train.csv?sig=x", SHA256: sumA, Path: "data/train.csv"}
	with := func(f func(*jobdata.Input)) []jobdata.Input { x := ok; f(&x); return []jobdata.Input{x} }
	many := make([]jobdata.Input, jobdata.MaxInputs+1)
	cases := []struct {
		name   string
		in     []jobdata.Input
		expErr string
	}{
		{"valid", []jobdata.Input{ok}, ""},
		{"none", nil, ""},
		{"too many", many, "65 inputs, at most 64"},
		{"ftp", with(func(x *jobdata.Input) { x.URL = "ftp://h/x" }), "http or https only"},
		{"file", with(func(x *jobdata.Input) { x.URL = "file:///etc/passwd" }), "http or https only"},
		{"credentials", with(func(x *jobdata.Input) { x.URL = "https://u:p@h/x" }), "credentials"},
		{"upper-case sha", with(func(x *jobdata.Input) { x.SHA256 = strings.ToUpper(sumA) }), "64 lower-case hex"},
		{"short sha", with(func(x *jobdata.Input) { x.SHA256 = sumA[:62] }), "64 lower-case hex"},
		{"absolute", with(func(x *jobdata.Input) { x.Path = "/etc/x" }), "absolute"},
		{"dotdot", with(func(x *jobdata.Input) { x.Path = "../x" }), "leaves its directory"},
		{"dotdot clean", with(func(x *jobdata.Input) { x.Path = ".." }), "leaves its directory"},
		{"unclean", with(func(x *jobdata.Input) { x.Path = "a//b" }), "not clean"},
		{"dot", with(func(x *jobdata.Input) { x.Path = "." }), "not clean"},
		{"empty", with(func(x *jobdata.Input) { x.Path = "" }), "1 to 255 bytes"},
		{"newline", with(func(x *jobdata.Input) { x.Path = "a\nb" }), "control character"},
		{"twice", []jobdata.Input{ok, ok}, `"data/train.csv" named twice`},
		{"file and dir", []jobdata.Input{ok, {URL: ok.URL, SHA256: sumA, Path: "data/train.csv/x"}}, `"data/train.csv" is a file and the directory of "data/train.csv/x"`},
	}
	for i := range many {
		many[i] = jobdata.Input{URL: ok.URL, SHA256: sumA, Path: strings.Repeat("a", i+1)}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := jobdata.ValidateInputs(tc.in)
			if tc.expErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.expErr)
		})
	}
}
