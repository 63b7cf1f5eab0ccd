// Package sigverify checks the chain's secp256k1 transaction signatures with
// libsecp256k1 (go-ethereum's cgo binding) and remembers the ones it has
// accepted, so a tx checked in CheckTx is not checked again when its block
// runs.
//
// The node cannot link the SDK's own cgo verifier (build tag
// libsecp256k1_sdk): go-ethereum's copy of the C library, linked for wallet
// signatures, collides with the SDK's at link time. Without the tag the SDK
// verifies in pure Go, several times slower. This package gives the SDK's
// verdict for every input (VerifySecp256k1), so swapping it in changes no
// consensus outcome; SigVerificationDecorator is the SDK's decorator with only
// its call that checks a signature routed here.
package sigverify
