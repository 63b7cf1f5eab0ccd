package types

// Serves is the tier eligibility rule (docs/design.md#clearing): a provider
// may bid on, and be matched to, a job of tier when it is ACTIVE with a
// positive reliability at least the tier's floor. reliability is 0 for a
// provider that is not ACTIVE. Clearing applies it on chain; the CLI
// applies the same function before a renter posts, so it never promises a
// match the chain would refuse.
func Serves(params Params, tier Tier, reliability uint32) bool {
	return reliability > 0 && reliability >= params.MinReliability(tier)
}
