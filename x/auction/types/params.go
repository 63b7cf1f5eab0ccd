package types

import (
	"fmt"
	"time"

	errorsmod "cosmossdk.io/errors"

	"github.com/idlegpu/idlegpu/x/internal/check"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// Default parameter values (docs/design.md#params).
const (
	DefaultMaxClearingsPerBlock     uint32 = 500
	DefaultMaxBidsPerJob            uint32 = 100
	DefaultMaxCandidatesPerJob      uint32 = 256
	DefaultIncludeStandingOffers           = true
	DefaultClearingRule                    = CLEARING_RULE_SECOND_PRICE
	DefaultBidWindowBlocks          uint32 = 2
	DefaultMaxJobDurationSeconds    uint64 = 720 * 3600
	DefaultStartTimeoutSeconds      uint64 = 600
	DefaultGoldMinReliabilityBps    uint32 = 9900
	DefaultSilverMinReliabilityBps  uint32 = 9500
	DefaultBronzeMinReliabilityBps  uint32 = 0
	DefaultMaxGPUsPerJob            uint32 = check.MaxGPUsPerLease
	DefaultMaxSignedDeadlineSeconds uint64 = 24 * 3600
	DefaultMaxNoncePrunesPerBlock   uint32 = 1000
	// Two days: an agent or renter away for a weekend still finds its ended
	// leases on chain; the web app's index keeps them after that.
	DefaultRecordRetentionSeconds  uint64 = 48 * 3600
	DefaultMaxRecordPrunesPerBlock uint32 = 200
)

// DefaultParams returns the default x/auction parameters.
func DefaultParams() Params {
	return Params{
		MaxClearingsPerBlock:   DefaultMaxClearingsPerBlock,
		MaxBidsPerJob:          DefaultMaxBidsPerJob,
		MaxCandidatesPerJob:    DefaultMaxCandidatesPerJob,
		IncludeStandingOffers:  DefaultIncludeStandingOffers,
		ClearingRule:           DefaultClearingRule,
		DefaultBidWindowBlocks: DefaultBidWindowBlocks,
		MaxJobDurationSeconds:  DefaultMaxJobDurationSeconds,
		StartTimeoutSeconds:    DefaultStartTimeoutSeconds,
		TierMinReliability: TierMinReliability{
			GoldBps:   DefaultGoldMinReliabilityBps,
			SilverBps: DefaultSilverMinReliabilityBps,
			BronzeBps: DefaultBronzeMinReliabilityBps,
		},
		MaxGpusPerJob:            DefaultMaxGPUsPerJob,
		MaxSignedDeadlineSeconds: DefaultMaxSignedDeadlineSeconds,
		MaxNoncePrunesPerBlock:   DefaultMaxNoncePrunesPerBlock,
		RecordRetentionSeconds:   DefaultRecordRetentionSeconds,
		MaxRecordPrunesPerBlock:  DefaultMaxRecordPrunesPerBlock,
	}
}

// Validate checks every field; the error wraps ErrInvalidParams and names the field.
func (p Params) Validate() error {
	for _, err := range []error{
		check.Positive("max_clearings_per_block", p.MaxClearingsPerBlock),
		check.Positive("max_bids_per_job", p.MaxBidsPerJob),
		check.Positive("max_candidates_per_job", p.MaxCandidatesPerJob),
		validateClearingRule(p.ClearingRule),
		check.Seconds("max_job_duration_seconds", p.MaxJobDurationSeconds),
		check.Seconds("start_timeout_seconds", p.StartTimeoutSeconds),
		p.TierMinReliability.Validate(),
		// A job no bigger than a lease can always be proven, whether it
		// clears with one provider or is split.
		check.GPUsPerLease("max_gpus_per_job", p.MaxGpusPerJob),
		check.Seconds("max_signed_deadline_seconds", p.MaxSignedDeadlineSeconds),
		check.Positive("max_nonce_prunes_per_block", p.MaxNoncePrunesPerBlock),
		check.Seconds("record_retention_seconds", p.RecordRetentionSeconds),
		check.Positive("max_record_prunes_per_block", p.MaxRecordPrunesPerBlock),
	} {
		if err != nil {
			return errorsmod.Wrap(ErrInvalidParams, err.Error())
		}
	}
	return nil
}

// MinReliability is the reliability floor for tier.
func (p Params) MinReliability(t Tier) uint32 {
	switch t {
	case TIER_GOLD:
		return p.TierMinReliability.GoldBps
	case TIER_SILVER:
		return p.TierMinReliability.SilverBps
	default:
		return p.TierMinReliability.BronzeBps
	}
}

// RecordRetention is how long an ended job and its leases stay in state.
func (p Params) RecordRetention() time.Duration { return check.Duration(p.RecordRetentionSeconds) }

// StartTimeout is how long a lease may stay PENDING.
func (p Params) StartTimeout() time.Duration { return check.Duration(p.StartTimeoutSeconds) }

func validateClearingRule(r ClearingRule) error {
	switch r {
	case CLEARING_RULE_SECOND_PRICE, CLEARING_RULE_FIRST_PRICE:
		return nil
	default:
		return fmt.Errorf("clearing_rule must be SECOND_PRICE or FIRST_PRICE, got %s", r)
	}
}

// Validate checks each floor is one a provider can reach (at most
// x/provider's MaxReachableReliabilityBps: a higher floor would close the
// tier to every provider that ever started or fell below it) and that a
// better tier never asks for less reliability than a lower one.
func (t TierMinReliability) Validate() error {
	for _, err := range []error{
		reachableFloor("tier_min_reliability.gold_bps", t.GoldBps),
		reachableFloor("tier_min_reliability.silver_bps", t.SilverBps),
		reachableFloor("tier_min_reliability.bronze_bps", t.BronzeBps),
	} {
		if err != nil {
			return err
		}
	}
	if t.GoldBps < t.SilverBps || t.SilverBps < t.BronzeBps {
		return fmt.Errorf("tier_min_reliability must satisfy gold >= silver >= bronze, got %d, %d, %d",
			t.GoldBps, t.SilverBps, t.BronzeBps)
	}
	return nil
}

// reachableFloor checks a tier's floor: in bps and at most MaxReachableReliabilityBps.
func reachableFloor(field string, bps uint32) error {
	if err := check.Bps(field, bps); err != nil {
		return err
	}
	if bps > providertypes.MaxReachableReliabilityBps {
		return fmt.Errorf("%s must be at most %d bps (the most a provider's reliability can climb to), got %d",
			field, providertypes.MaxReachableReliabilityBps, bps)
	}
	return nil
}
