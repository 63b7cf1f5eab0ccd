package wallet_test

// Committed vectors for vectorKey and vectorBid (wallet_test.go).
const (
	vectorDigest    = "9759956c89a6b4fe5d62d929e88f0b150fd52aa01f5e53ffbc7fbe966f5dcc80"
	vectorSignature = "7d1e5999055dd2d36382854ead40d417a0a20a6c48cb0f30da39c1690788e28d7c2caca3ccf0ebba81588f14124771532d4b3ef641ff1bddbc1b5dc89ce598f41c"
)
