package simulation

import (
	"context"
	"sort"
	"time"

	"cosmossdk.io/collections"

	"github.com/cosmos/cosmos-sdk/testutil/simsx"
	sdk "github.com/cosmos/cosmos-sdk/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/settlement/keeper"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// Leases reads x/auction's leases.
type Leases interface {
	Lease(ctx context.Context, id uint64) (auctiontypes.Lease, error)
}

// simImageDigest is the image a sim agent reports running: the chain
// records it but does not judge it.
const simImageDigest = "sha256:5151515151515151515151515151515151515151515151515151515151515151"

// MsgSubmitProofsFactory proves, as an agent that serves every other epoch,
// the next epoch of a settling lease of a sim provider once it has ended
// and before it falls due: only even epochs are proven, odd ones are left
// to be missed, so leases see misses that are not in a row and the
// miss-window rule (LeaseProgress.MissesFail) is exercised. The proof is an
// honest one: every lease GPU sampled every sample interval across the
// window with figures its model can produce, bound to the first recorded
// header inside the window. A window without one cannot be proven (the
// chain excuses it), so it is skipped.
func MsgSubmitProofsFactory(k keeper.Keeper, leases Leases, providers Providers) simsx.SimMsgFactoryFn[*types.MsgSubmitProofs] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgSubmitProofs) {
		c, ok := provableEpoch(ctx, k, leases, providers, testData, reporter)
		if !ok {
			return nil, nil
		}
		r := testData.Rand()
		p, err := honestProof(ctx, providers, c, r.Rand)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		signer := testData.GetAccount(reporter, c.signers[r.Intn(len(c.signers))])
		if reporter.IsSkipped() {
			return nil, nil
		}
		return []simsx.SimAccount{signer}, &types.MsgSubmitProofs{
			Signer: signer.AddressBech32, Provider: c.lease.Provider, Proofs: []types.ExecutionProof{p},
		}
	}
}

// proofCandidate is a lease's next epoch a sim agent can prove now.
type proofCandidate struct {
	lease auctiontypes.Lease
	// signers are the sim accounts that may sign its proofs: the operator,
	// its agents.
	signers   []string
	prog      types.LeaseProgress
	from, to  time.Time
	challenge types.HeaderRecord
}

// provableEpoch picks a settling lease, one of whose signers is a sim
// account, with an even next epoch that has ended, is not yet due and has
// a recorded header inside its window; or skips, saying what was missing.
func provableEpoch(ctx context.Context, k keeper.Keeper, leases Leases, providers Providers, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) (proofCandidate, bool) {
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	params, err := k.Params.Get(ctx)
	if err != nil {
		reporter.Skip(err.Error())
		return proofCandidate{}, false
	}
	var ended, even, provable []proofCandidate
	// The due index holds exactly the leases with an epoch to settle.
	err = k.Due.Walk(ctx, nil, func(key collections.Pair[time.Time, uint64]) (bool, error) {
		if !key.K1().After(now) {
			return false, nil // overdue: this block's EndBlocker settles it
		}
		l, err := leases.Lease(ctx, key.K2())
		if err != nil {
			return true, err
		}
		if l.Status != auctiontypes.LEASE_STATUS_ACTIVE && l.Status != auctiontypes.LEASE_STATUS_CLOSING {
			return false, nil
		}
		prog, err := k.Progress.Get(ctx, l.Id)
		if err != nil {
			return true, err
		}
		prog.FillUnset(params, l.DurationSeconds) // as the chain judges it
		from, to, ok := prog.Window(l.Start, prog.NextEpoch)
		if !ok || to.After(now) {
			return false, nil
		}
		signers, err := simSigners(ctx, providers, testData, l.Provider)
		if err != nil || len(signers) == 0 {
			return false, err
		}
		ended = append(ended, proofCandidate{lease: l, signers: signers, prog: prog, from: from, to: to})
		return false, nil
	})
	if err != nil {
		reporter.Skip(err.Error())
		return proofCandidate{}, false
	}
	for _, c := range ended {
		// An agent that serves every other epoch.
		if c.prog.NextEpoch%2 == 0 {
			even = append(even, c)
		}
	}
	if len(even) > 0 {
		headers, err := recordedHeaders(ctx, k)
		if err != nil {
			reporter.Skip(err.Error())
			return proofCandidate{}, false
		}
		for _, c := range even {
			if h, ok := firstHeaderIn(headers, c.from, c.to); ok && c.prog.Provable(c.from, c.to) {
				c.challenge = h
				provable = append(provable, c)
			}
		}
	}
	switch {
	case len(ended) == 0:
		reporter.Skip("no ended epoch of a sim provider's lease awaits its proof")
	case len(even) == 0:
		reporter.Skip("only odd epochs await proofs: left to be missed")
	case len(provable) == 0:
		reporter.Skip("no recorded header inside the window, or shorter than a sample interval: the epoch will be excused")
	default:
		return provable[testData.Rand().Intn(len(provable))], true
	}
	return proofCandidate{}, false
}

// simSigners are the sim accounts that may sign a provider's proofs (its
// operator, its agents: x/provider IsAuthorized), in that order.
func simSigners(ctx context.Context, providers Providers, testData *simsx.ChainDataSource, provider string) ([]string, error) {
	addr, err := testData.AddressCodec().StringToBytes(provider)
	if err != nil {
		return nil, err
	}
	p, err := providers.Provider(ctx, addr)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range append([]string{provider}, p.Agents...) {
		if testData.HasAccount(a) {
			out = append(out, a)
		}
	}
	return out, nil
}

// recordedHeaders is the header ring, oldest first (heights grow with time).
func recordedHeaders(ctx context.Context, k keeper.Keeper) ([]types.HeaderRecord, error) {
	var out []types.HeaderRecord
	err := k.Headers.Walk(ctx, nil, func(_ int64, h types.HeaderRecord) (bool, error) {
		out = append(out, h)
		return false, nil
	})
	return out, err
}

// firstHeaderIn is the first header at or after from, if it is not after to.
func firstHeaderIn(headers []types.HeaderRecord, from, to time.Time) (types.HeaderRecord, bool) {
	i := sort.Search(len(headers), func(i int) bool { return !headers[i].Time.Before(from) })
	if i == len(headers) || headers[i].Time.After(to) {
		return types.HeaderRecord{}, false
	}
	return headers[i], true
}
