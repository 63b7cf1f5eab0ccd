// Package ante holds the chain's own ante decorators: checks on a whole
// transaction that no single module can make, run before the SDK's. It also
// builds the SDK's ante chain (NewAnteHandler) with signatures checked by
// sigverify, the SDK's verdicts at libsecp256k1's speed.
package ante
