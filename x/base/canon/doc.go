// Package canon holds the one rule for how a number is written wherever a
// person reads the text the chain executes: plain decimal, "0" or digits
// without a leading zero, "-" for a negative, no "+", "0x", "_", exponent
// or space (docs/design.md#messages). The chain's amounts (math.Int) read
// text with Go's base-0 rules, where "00001234567" is octal 342391 and
// "0x10" is 16, while a person, a wallet and JavaScript read other numbers
// from the same text; holding every such text to one spelling makes the
// number a signer reads the number that moves.
//
// It checks protobuf bytes' text fields (app/ante) and JSON read against
// the message descriptors (JSONChecker: the CLI's JSON txs, wallet-signed
// bids), and parses decimal text a person typed (ParseInt, ParseUint64).
// It imports nothing of this module, so the app, the modules and the
// binaries can all use it.
package canon
