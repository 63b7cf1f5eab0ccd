package keeper

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// drawRandomAudits opens, every random_audit_interval_blocks, up to
// random_audits_per_draw audits of idle GPUs that have a pass, picked from
// this block's header hash (docs/design.md#audits, "Who opens audits"): a
// UUID-space point sha256(hash ‖ i) and the first registered GPU at or
// after it. A pick that cannot be audited now (leased, under audit, in
// its cooldown, without a pass, its provider not active) is skipped, not
// retried: each draw costs at most random_audits_per_draw lookups.
func (k Keeper) drawRandomAudits(ctx context.Context, params types.Params) error {
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	hash := sdkCtx.HeaderHash()
	if params.RandomAuditsPerDraw == 0 || len(hash) == 0 || uint64(sdkCtx.BlockHeight())%params.RandomAuditIntervalBlocks != 0 {
		return nil
	}
	now := sdkCtx.BlockTime()
	for i := range params.RandomAuditsPerDraw {
		point := sha256.Sum256(binary.BigEndian.AppendUint32(append([]byte("idlegpu/random-audit"), hash...), i))
		g, found, err := k.providers.GPUAtOrAfter(ctx, "GPU-"+hex.EncodeToString(point[:4]))
		if err != nil || !found {
			return err
		}
		if ok, err := k.verified(ctx, g.Uuid, now); err != nil || !ok {
			continue
		}
		if last, err := k.Cooldowns.Get(ctx, g.Uuid); err == nil && now.Before(last.Add(params.AuditCooldown())) {
			continue
		}
		if _, err := k.auditable(ctx, g); err != nil {
			continue
		}
		if _, err := k.openAudit(ctx, g, "", sdk.Coin{}, types.AUDIT_REASON_RANDOM, params); err != nil {
			continue
		}
	}
	return nil
}
