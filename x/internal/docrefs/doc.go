// Package docrefs holds the test that keeps docs/design.md's pointers to
// the code true: every `path/file.go: Name` it cites names a file that
// exists and declares Name.
package docrefs
