// Package networktest tests what an operator runs to make and keep a
// network (docs/operators.md) on real processes: the genesis ceremony of
// `make testnet` started on loopback, a validator joining it with
// create-validator and a file keyring unlocked by --keyring-passphrase-file,
// and a governance upgrade that cosmovisor applies by switching binaries.
// It runs the binaries `make test-network` builds and skips without them.
package networktest
