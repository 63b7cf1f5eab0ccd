package types

import (
	"cosmossdk.io/math"

	"github.com/idlegpu/idlegpu/x/internal/check"
)

// SlashSplit is how one slash divides what a provider has at stake.
type SlashSplit struct {
	// Cuts are what is taken from each part, in the order of the parts.
	Cuts []math.Int
	// Burned is the penalty: fractionBps of each part, each rounded down.
	Burned math.Int
	// Reward is the beneficiary's: rewardShareBps of the penalty, taken on
	// top of it from what the penalty left, and never more than that.
	Reward math.Int
}

// Total is everything the slash takes: Burned + Reward.
func (s SlashSplit) Total() math.Int { return s.Burned.Add(s.Reward) }

// SplitSlash is the slashing rule. parts are what the provider has at
// stake: its bonded stake first, then its unbonding entries oldest first.
// The penalty, fractionBps of each part (rounded down), is burned whoever
// reports the fault; a beneficiary's reward (rewarded) is rewardShareBps of
// the penalty, taken on top of it from what is left of the parts in their
// order, and capped by what is left.
//
// So a provider that reports itself, from its own or a second address,
// gets back only the reward it paid on top: it still loses the whole
// penalty, exactly what an unreported fault costs. Reporting yourself
// never makes a fault cheaper, and a reporter still earns
// fraudReporterShare × penalty.
func SplitSlash(parts []math.Int, fractionBps, rewardShareBps uint32, rewarded bool) SlashSplit {
	split := SlashSplit{Cuts: make([]math.Int, len(parts)), Burned: math.ZeroInt(), Reward: math.ZeroInt()}
	for i, part := range parts {
		split.Cuts[i] = bpsOf(part, fractionBps)
		split.Burned = split.Burned.Add(split.Cuts[i])
	}
	if !rewarded {
		return split
	}
	owed := bpsOf(split.Burned, rewardShareBps)
	for i, part := range parts {
		if owed.IsZero() {
			break
		}
		take := math.MinInt(owed, part.Sub(split.Cuts[i]))
		split.Cuts[i] = split.Cuts[i].Add(take)
		split.Reward = split.Reward.Add(take)
		owed = owed.Sub(take)
	}
	return split
}

// bpsOf is floor(amount × bps / 10000).
func bpsOf(amount math.Int, bps uint32) math.Int {
	return amount.MulRaw(int64(bps)).QuoRaw(check.MaxBps)
}
