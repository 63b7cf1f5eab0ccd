// Package ante holds the chain's own ante decorators: checks on a whole
// transaction that no single module can make, run before the SDK's.
package ante
