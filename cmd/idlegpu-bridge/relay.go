package main

import (
	"context"
	"crypto/ecdsa"

	"fmt"
	"log/slog"
	"sort"
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
			log, err := logger(cmd)
			if err != nil {
				return err
			}
			key, err := ethKey(cmd)
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
// the newest ready root signed under the vault's set, then accept a pending
// root whose timelock has passed. Each step is skipped when there is
// nothing to do, so a round after a restart picks up wherever the vault is.
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
	}{{"valset", r.relayValset}, {"propose", r.proposeRoot}, {"accept", r.acceptRoot}} {
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

// proposeRoot proposes the newest ready root the vault can take: a later
// epoch than it has seen, signed under the set it holds.
func (r *relayer) proposeRoot(ctx context.Context, p bridgeParams) error {
	res, err := r.q.Root(ctx, &bridgetypes.QueryRootRequest{ReadyOnly: true})
	if notFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("newest ready root: %w", err)
	}
	pr := res.Root
	last, err := call(ctx, r.evm, r.evm.vault.PackLastProposedEpoch(), r.evm.vault.UnpackLastProposedEpoch)
	if err != nil {
		return fmt.Errorf("vault lastProposedEpoch: %w", err)
	}
	if pr.Epoch == 0 || pr.Epoch <= last {
		return nil
	}
	current, err := r.vaultSet(ctx, p)
	if err != nil {
		return err
	}
	if pr.ValsetNonce != current.Nonce {
		r.log.Info("ready root signed under another valset than the vault's; waiting for the next",
			"epoch", pr.Epoch, "root_valset", pr.ValsetNonce, "vault_valset", current.Nonce)
		return nil
	}
	root, digest, err := p.checkedRoot(pr)
	if err != nil {
		return err
	}
	sigs, err := signatures(current, res.Confirms, digest)
	if err != nil {
		return fmt.Errorf("root %d is ready on the chain but its signatures do not pass the vault's check: %w", pr.Epoch, err)
	}
	rcpt, err := r.evm.send(ctx, r.key, r.evm.vaultC,
		r.evm.vault.PackProposeRoot(vaultValset(current), vaultSigs(sigs), pr.Epoch, root, pr.TotalCumulative.BigInt()))
	if err != nil {
		return fmt.Errorf("proposeRoot %d: %w", pr.Epoch, err)
	}
	r.m.Relayed.WithLabelValues("proposeRoot").Inc()
	r.log.Info("root proposed", "epoch", pr.Epoch, "root", pr.Root, "total", pr.TotalCumulative.String(), "tx", rcpt.TxHash.Hex())
	return nil
}

// acceptRoot accepts the pending root once the newest EVM block's time has
// reached its acceptableAt (what the vault compares), unless paused.
func (r *relayer) acceptRoot(ctx context.Context, _ bridgeParams) error {
	pend, err := call(ctx, r.evm, r.evm.vault.PackPendingRoot(), r.evm.vault.UnpackPendingRoot)
	if err != nil {
		return fmt.Errorf("vault pendingRoot: %w", err)
	}
	if pend.Root == ([32]byte{}) {
		return nil
	}
	paused, err := call(ctx, r.evm, r.evm.vault.PackPaused(), r.evm.vault.UnpackPaused)
	if err != nil {
		return fmt.Errorf("vault paused: %w", err)
	}
	if paused {
		r.log.Warn("vault paused by its guardian: not accepting", "epoch", pend.Epoch)
		return nil
	}
	head, err := r.evm.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return fmt.Errorf("EVM head: %w", err)
	}
	if head.Time < pend.AcceptableAt {
		return nil
	}
	rcpt, err := r.evm.send(ctx, r.key, r.evm.vaultC, r.evm.vault.PackAcceptRoot())
	if err != nil {
		return fmt.Errorf("acceptRoot %d: %w", pend.Epoch, err)
	}
	r.m.Relayed.WithLabelValues("acceptRoot").Inc()
	r.log.Info("root accepted", "epoch", pend.Epoch, "tx", rcpt.TxHash.Hex())
	return nil
}
