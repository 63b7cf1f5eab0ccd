package bridge

import (
	"context"
	"crypto/ecdsa"

	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/contracts/payout"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// relayCmd carries the chain's signed valsets and payout roots to the
// vault and accepts roots once their timelock has passed. Anyone may run
// it with any funded EVM key: it reads all its state from the two chains
// each round, so several relayers, or a restarted one, never conflict
// beyond a reverted (and reported) duplicate.
func relayCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "relay",
		Short: "Relay valsets and payout roots to the vault, and accept roots after their timelock",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, key, err := keyedSession(cmd)
			if err != nil {
				return err
			}
			qc, err := queryContext(cmd)
			if err != nil {
				return err
			}
			m := newMetrics("relayer")
			stop, err := m.serve(cmd, log)
			if err != nil {
				return err
			}
			defer stop()
			poll, _ := cmd.Flags().GetDuration(flagPoll)
			r := &relayer{cmd: cmd, log: log, q: queryClient(qc), key: key, m: m}
			return loop(cmd.Context(), log, poll, r.round)
		},
	}
	addNodeFlags(cmd)
	addEthRPCFlag(cmd)
	addEthKeyFlags(cmd, "the key that pays the relayed transactions' gas")
	addMetricsFlag(cmd)
	cmd.Flags().Duration(flagPoll, 2*time.Second, "how often to look at both chains")
	return cmd
}

// relayer holds only connections and its key; no relay state.
type relayer struct {
	cmd *cobra.Command
	log *slog.Logger
	q   bridgetypes.QueryClient
	key *ecdsa.PrivateKey
	m   *metrics
	evm *evm
}

// round: rotate the vault's set if the chain has a newer one, then propose
// every ready root the vault has not seen, in epoch order, then accept the
// highest pending root whose timelock has passed. Each step is skipped when
// there is nothing to do, so a round after a restart picks up wherever the
// vault is.
func (r *relayer) round(ctx context.Context) error {
	p, err := loadParams(ctx, r.q)
	if err != nil {
		r.m.Errors.WithLabelValues("params").Inc()
		return err
	}
	if r.evm == nil {
		if r.evm, err = dialEVM(ctx, r.cmd, p.domain.Vault); err != nil {
			r.m.Errors.WithLabelValues("evm").Inc()
			return err
		}
	}
	if head, err := r.evm.client.BlockNumber(ctx); err == nil {
		r.m.EvmHead.Set(float64(head))
	}
	for _, step := range []struct {
		name string
		do   func(context.Context, bridgeParams) error
	}{{"valset", r.relayValset}, {"propose", r.proposeRoots}, {"accept", r.acceptRoot}} {
		if err := step.do(ctx, p); err != nil {
			r.m.Errors.WithLabelValues(step.name).Inc()
			return fmt.Errorf("%s: %w", step.name, err)
		}
	}
	return nil
}

// vaultSet is the vault's current set as the chain recorded it, checked
// against the checkpoint the vault stores (a vault that disagrees with the
// chain must not be sent anything).
func (r *relayer) vaultSet(ctx context.Context, p bridgeParams) (payout.Valset, error) {
	nonce, err := call(ctx, r.evm, r.evm.vault.PackValsetNonce(), r.evm.vault.UnpackValsetNonce)
	if err != nil {
		return payout.Valset{}, fmt.Errorf("vault valsetNonce: %w", err)
	}
	res, err := r.q.Valset(ctx, &bridgetypes.QueryValsetRequest{Nonce: nonce})
	if err != nil {
		return payout.Valset{}, fmt.Errorf("the vault's valset %d on the idlegpu chain: %w", nonce, err)
	}
	vs, cp, err := p.checkedValset(res.Valset)
	if err != nil {
		return vs, err
	}
	stored, err := call(ctx, r.evm, r.evm.vault.PackValsetCheckpoint(), r.evm.vault.UnpackValsetCheckpoint)
	if err != nil {
		return vs, fmt.Errorf("vault valsetCheckpoint: %w", err)
	}
	if common.Hash(stored) != cp {
		return vs, fmt.Errorf("the vault's checkpoint %x is not the chain's valset %d (%s)", stored, nonce, cp)
	}
	return vs, nil
}

// signatures picks, from confirms, those of current's members over digest,
// in the index order the vault requires, and checks them as the vault will
// before gas is spent. A confirm that does not recover to its member is
// left out (the vault refuses a set with any bad signature).
func signatures(current payout.Valset, confirms []bridgetypes.Confirm, digest common.Hash) ([]payout.Signature, error) {
	var sigs []payout.Signature
	for _, c := range confirms {
		addr, err := bridgetypes.ParseEvmAddress(c.EvmAddress)
		if err != nil {
			continue
		}
		idx := current.IndexOf(addr)
		if idx < 0 {
			continue
		}
		s, err := bridgetypes.VaultSignature(uint32(idx), c.Signature)
		if err != nil {
			continue
		}
		if got, err := payout.Recover(digest, s); err != nil || got != addr {
			continue
		}
		sigs = append(sigs, s)
	}
	sort.Slice(sigs, func(i, j int) bool { return sigs[i].Index < sigs[j].Index })
	if _, err := current.Verify(digest, sigs); err != nil {
		return nil, err
	}
	return sigs, nil
}

// relayValset rotates the vault to the chain's newest valset.
func (r *relayer) relayValset(ctx context.Context, p bridgeParams) error {
	current, err := r.vaultSet(ctx, p)
	if err != nil {
		return err
	}
	newest, err := r.q.Valset(ctx, &bridgetypes.QueryValsetRequest{Nonce: 0})
	if err != nil {
		return fmt.Errorf("newest valset: %w", err)
	}
	if newest.Valset.Nonce <= current.Nonce {
		return nil
	}
	next, cp, err := p.checkedValset(newest.Valset)
	if err != nil {
		return err
	}
	sigs, err := signatures(current, newest.Confirms, cp)
	if err != nil {
		r.log.Info("valset not signed enough yet", "nonce", next.Nonce, "vault_nonce", current.Nonce, "why", err)
		return nil
	}
	rcpt, err := r.evm.send(ctx, r.key, r.evm.vaultC, r.evm.vault.PackUpdateValset(vaultValset(next), vaultValset(current), vaultSigs(sigs)))
	if err != nil {
		return fmt.Errorf("updateValset %d → %d: %w", current.Nonce, next.Nonce, err)
	}
	r.m.Relayed.WithLabelValues("updateValset").Inc()
	r.log.Info("vault valset updated", "from", current.Nonce, "to", next.Nonce, "tx", rcpt.TxHash.Hex())
	return nil
}

// proposeRoots proposes, in epoch order, every ready root of a later epoch
// than the vault last saw. Each root's timelock runs from its own proposal
// and a newer proposal never delays an older root, so none is held back
// because another is pending. A root the chain has not made ready (or has
// pruned) is left out: a later root carries everything it would have paid.
func (r *relayer) proposeRoots(ctx context.Context, p bridgeParams) error {
	newest, err := r.q.Root(ctx, &bridgetypes.QueryRootRequest{ReadyOnly: true})
	if notFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("newest ready root: %w", err)
	}
	last, err := call(ctx, r.evm, r.evm.vault.PackLastProposedEpoch(), r.evm.vault.UnpackLastProposedEpoch)
	if err != nil {
		return fmt.Errorf("vault lastProposedEpoch: %w", err)
	}
	top := newest.Root.Epoch
	if top <= last {
		return nil
	}
	current, err := r.vaultSet(ctx, p)
	if err != nil {
		return err
	}
	// The chain keeps only its newest roots_kept roots (epochs are
	// consecutive), so older epochs need not be asked for.
	first := last + 1
	if kept := uint64(p.params.RootsKept); kept > 0 && top >= kept && top-kept+1 > first {
		first = top - kept + 1
	}
	for epoch := first; epoch <= top; epoch++ {
		res := newest
		if epoch != top {
			if res, err = r.q.Root(ctx, &bridgetypes.QueryRootRequest{Epoch: epoch, ReadyOnly: true}); rootMissing(err) {
				r.log.Debug("root not ready or pruned on the chain; a later one will carry it", "epoch", epoch)
				continue
			} else if err != nil {
				return fmt.Errorf("ready root %d: %w", epoch, err)
			}
		}
		if more, err := r.proposeRoot(ctx, p, current, res); err != nil || !more {
			return err
		}
	}
	return nil
}

// proposeRoot proposes one ready root signed under current, the vault's
// set. It reports whether later roots may follow: not when this one waits
// for the vault to rotate to the set it was signed under.
func (r *relayer) proposeRoot(ctx context.Context, p bridgeParams, current payout.Valset, res *bridgetypes.QueryRootResponse) (bool, error) {
	pr := res.Root
	switch {
	case pr.ValsetNonce > current.Nonce:
		r.log.Info("ready root signed under a later valset than the vault's; waiting for the rotation",
			"epoch", pr.Epoch, "root_valset", pr.ValsetNonce, "vault_valset", current.Nonce)
		return false, nil
	case pr.ValsetNonce < current.Nonce:
		r.log.Info("ready root signed under an earlier valset than the vault's; a later root will carry it",
			"epoch", pr.Epoch, "root_valset", pr.ValsetNonce, "vault_valset", current.Nonce)
		return true, nil
	}
	root, digest, err := p.checkedRoot(pr)
	if err != nil {
		return false, err
	}
	sigs, err := signatures(current, res.Confirms, digest)
	if err != nil {
		return false, fmt.Errorf("root %d is ready on the chain but its signatures do not pass the vault's check: %w", pr.Epoch, err)
	}
	rcpt, err := r.evm.send(ctx, r.key, r.evm.vaultC,
		r.evm.vault.PackProposeRoot(vaultValset(current), vaultSigs(sigs), pr.Epoch, root, pr.TotalCumulative.BigInt()))
	if err != nil {
		return false, fmt.Errorf("proposeRoot %d: %w", pr.Epoch, err)
	}
	r.m.Relayed.WithLabelValues("proposeRoot").Inc()
	r.log.Info("root proposed", "epoch", pr.Epoch, "root", pr.Root, "total", pr.TotalCumulative.String(), "tx", rcpt.TxHash.Hex())
	return true, nil
}

// rootMissing: the chain has no ready root for that epoch (not made ready,
// or pruned). The "not ready" refusal is a NotFound status, whose code
// does not survive an ABCI query.
func rootMissing(err error) bool {
	return notFound(err) || (err != nil && strings.Contains(err.Error(), "not ready"))
}

// acceptRoot accepts the highest-epoch pending root whose timelock has
// passed by the newest EVM block's time (what the vault compares) and that
// is above both the accepted epoch and the cancelled ones, unless paused.
func (r *relayer) acceptRoot(ctx context.Context, _ bridgeParams) error {
	v := r.evm.vault
	last, err := call(ctx, r.evm, v.PackLastProposedEpoch(), v.UnpackLastProposedEpoch)
	if err != nil {
		return fmt.Errorf("vault lastProposedEpoch: %w", err)
	}
	acc, err := call(ctx, r.evm, v.PackAcceptedRoot(), v.UnpackAcceptedRoot)
	if err != nil {
		return fmt.Errorf("vault acceptedRoot: %w", err)
	}
	cancelled, err := call(ctx, r.evm, v.PackCancelledThrough(), v.UnpackCancelledThrough)
	if err != nil {
		return fmt.Errorf("vault cancelledThrough: %w", err)
	}
	floor := max(acc.Epoch, cancelled) // nothing at or below it can be accepted
	if last <= floor {
		return nil
	}
	paused, err := call(ctx, r.evm, v.PackPaused(), v.UnpackPaused)
	if err != nil {
		return fmt.Errorf("vault paused: %w", err)
	}
	if paused {
		r.log.Warn("vault paused by its guardian: not accepting", "pending_through", last)
		return nil
	}
	head, err := r.evm.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return fmt.Errorf("EVM head: %w", err)
	}
	epoch, ok, err := highestAcceptable(floor, last, head.Time, func(e uint64) (bool, uint64, error) {
		pr, err := call(ctx, r.evm, v.PackPendingRoots(e), v.UnpackPendingRoots)
		if err != nil {
			return false, 0, fmt.Errorf("vault pendingRoots(%d): %w", e, err)
		}
		return pr.Root != [32]byte{}, pr.AcceptableAt, nil
	})
	if err != nil || !ok {
		return err
	}
	rcpt, err := r.evm.send(ctx, r.key, r.evm.vaultC, v.PackAcceptRoot(epoch))
	if err != nil {
		return fmt.Errorf("acceptRoot %d: %w", epoch, err)
	}
	r.m.Relayed.WithLabelValues("acceptRoot").Inc()
	r.log.Info("root accepted", "epoch", epoch, "tx", rcpt.TxHash.Hex())
	return nil
}

// highestAcceptable finds the highest epoch in (floor, last] holding a
// pending root whose acceptableAt is at or before now; pending reports
// whether an epoch holds one and its acceptableAt. Epochs strictly
// increase across proposals and block times never decrease, so among the
// proposed epochs acceptableAt never decreases: the acceptable ones are a
// prefix, and a binary search finds its end in O(log n) reads. An epoch
// never proposed (a gap) is skipped by reading down to the nearest
// proposed one.
func highestAcceptable(floor, last, now uint64, pending func(uint64) (bool, uint64, error)) (uint64, bool, error) {
	var best uint64
	found := false
	// Invariant: every proposed epoch in (floor, lo] is acceptable and best
	// is the highest of them; no proposed epoch in [hi, last] is.
	lo, hi := floor, last+1
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		e := mid
		var at uint64
		for ; e > lo; e-- { // down to the nearest proposed epoch
			has, a, err := pending(e)
			if err != nil {
				return 0, false, err
			}
			if has {
				at = a
				break
			}
		}
		switch {
		case e == lo: // nothing proposed in (lo, mid]
			lo = mid
		case at <= now:
			lo, best, found = mid, e, true
		default:
			hi = e
		}
	}
	return best, found, nil
}
