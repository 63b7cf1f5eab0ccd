package keeper

import (
	"errors"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// Migrate2to3 moves the chain to the failure-cost rules
// (docs/design.md#failure-costs-and-fees):
//   - params: miss_window_epochs takes its default; the step payment must
//     price every payment denom (an uncovered one stops the upgrade: add it
//     to the plan's params first).
//   - live leases keep their snapshot and get the window too.
//   - the header ring gets lost-time readings: every recorded header reads
//     the accumulator as it stands, so no deadline moves by time lost
//     before the upgrade twice, and none moves back.
//   - the recorded halts go: deadlines move by lost time now.
func (m Migrator) Migrate2to3(ctx sdk.Context) error {
	k := m.k
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	if params.MissWindowEpochs == 0 {
		params.MissWindowEpochs = max(types.DefaultMissWindowEpochs, params.MaxMissedEpochs)
	}
	if err := params.Validate(); err != nil {
		return err
	}
	if err := k.checkStepPayment(ctx, params); err != nil {
		return err
	}
	if err := k.Params.Set(ctx, params); err != nil {
		return err
	}
	if err := m.fillMissWindows(ctx, params); err != nil {
		return err
	}
	lost, err := k.lostMs(ctx)
	if err != nil {
		return err
	}
	var headers []types.HeaderRecord
	if err := k.Headers.Walk(ctx, nil, func(_ int64, h types.HeaderRecord) (bool, error) {
		headers = append(headers, h)
		return false, nil
	}); err != nil {
		return err
	}
	for _, h := range headers {
		h.LostMs, h.GapLostMs = lost, 0
		if err := k.Headers.Set(ctx, h.Height, h); err != nil {
			return err
		}
	}
	return m.clearPrefix(ctx, types.GapsKey.Bytes())
}

// fillMissWindows gives every watched lease's progress the miss window.
func (m Migrator) fillMissWindows(ctx sdk.Context, params types.Params) error {
	var progs []types.LeaseProgress
	err := m.k.Progress.Walk(ctx, nil, func(_ uint64, p types.LeaseProgress) (bool, error) {
		if p.MissWindowEpochs == 0 {
			progs = append(progs, p)
		}
		return false, nil
	})
	if err != nil && !errors.Is(err, collections.ErrNotFound) {
		return err
	}
	for _, p := range progs {
		p.MissWindowEpochs = max(params.MissWindowEpochs, p.MaxMissedEpochs)
		if err := m.k.Progress.Set(ctx, p.LeaseId, p); err != nil {
			return err
		}
	}
	return nil
}
