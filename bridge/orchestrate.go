package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/chainclient"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

const flagPoll = "poll"

// orchestrateCmd runs a validator's orchestrator: it attests the vault's
// deposits in nonce order and confirms the newest valset and payout root.
// It keeps no state of its own: every round starts from what the idlegpu
// chain says this validator already did, so a restart neither skips nor
// repeats anything.
func orchestrateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "orchestrate",
		Short: "Attest vault deposits and confirm valsets and payout roots for a validator",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, key, cl, err := validatorSession(cmd)
			if err != nil {
				return err
			}
			defer cl.Close()
			m := newMetrics("orchestrator")
			stop, err := m.serve(cmd, log)
			if err != nil {
				return err
			}
			defer stop()
			poll, _ := cmd.Flags().GetDuration(flagPoll)
			mode, _ := cmd.Flags().GetString(flagFinality)
			fin, err := newFinality(mode, log)
			if err != nil {
				return err
			}
			o := &orchestrator{cmd: cmd, log: log, chain: cl, q: queryClient(cl.Context()), m: m,
				evmAddr: crypto.PubkeyToAddress(key.PublicKey), finality: fin}
			o.sign = func(d [32]byte) ([]byte, error) { return bridgetypes.SignDigest(key, d) }
			return loop(cmd.Context(), log, poll, o.round)
		},
	}
	addNodeFlags(cmd)
	addCosmosKeyFlags(cmd)
	addEthRPCFlag(cmd)
	addEthKeyFlags(cmd, "the validator's registered EVM signing key")
	addMetricsFlag(cmd)
	addFinalityFlag(cmd)
	cmd.Flags().Duration(flagPoll, 2*time.Second, "how often to look at both chains")
	return cmd
}

// loop runs round every poll until ctx ends. A failed round is logged and
// retried: both chains are read afresh each time.
func loop(ctx context.Context, log *slog.Logger, poll time.Duration, round func(context.Context) error) error {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if err := round(ctx); err != nil && ctx.Err() == nil {
			log.Warn("round failed", "err", err)
		}
		select {
		case <-ctx.Done():
			log.Info("stopping")
			return nil
		case <-t.C:
		}
	}
}

// orchestrator is one validator's orchestrator: its Cosmos account, its EVM
// signer, and its deposit attester (where it is in the vault's events).
type orchestrator struct {
	cmd     *cobra.Command
	log     *slog.Logger
	chain   *chainclient.Client
	q       bridgetypes.QueryClient
	m       *metrics
	evmAddr [20]byte
	sign    func([32]byte) ([]byte, error)

	evm      *evm
	finality *finality
	deposits *depositAttester
}

// round is one pass: deposits, then the newest valset, then the newest root.
func (o *orchestrator) round(ctx context.Context) error {
	p, err := loadParams(ctx, o.q)
	if err != nil {
		o.m.Errors.WithLabelValues("params").Inc()
		return err
	}
	me, err := o.q.Orchestrator(ctx, &bridgetypes.QueryOrchestratorRequest{Address: o.chain.Address().String()})
	if err != nil {
		o.m.Errors.WithLabelValues("registration").Inc()
		return fmt.Errorf("%s is not a registered orchestrator yet (idlegpu-bridge register): %w", o.chain.Address(), err)
	}
	signer, err := bridgetypes.ParseEvmAddress(me.Signer.EvmAddress)
	if err != nil {
		return err
	}
	if signer != o.evmAddr {
		// Signing with a key the chain does not know would only collect
		// ErrBadSignature; say what is wrong instead.
		return fmt.Errorf("validator %s registered EVM signer %s, but --%s is %s", me.Signer.Validator, signer.Hex(), flagEthKey, o.evmAddr)
	}
	o.m.LastAttested.Set(float64(me.LastAttestedNonce))
	if o.evm == nil {
		if o.evm, err = dialEVM(ctx, o.cmd, p.domain.Vault); err != nil {
			o.m.Errors.WithLabelValues("evm").Inc()
			return err
		}
		if o.evm.chainID.Cmp(p.domain.ChainID) != 0 {
			id := o.evm.chainID
			o.evm.client.Close()
			o.evm = nil
			return fmt.Errorf("the EVM node is chain %s, the idlegpu chain's vault is on %s", id, p.domain.ChainID)
		}
		o.deposits = newDepositAttester(o.log, o.m, chainDeposits{q: o.q, chain: o.chain}, o.finality, o.evm.client, o.evm.addr)
	}
	var errs []error
	if err := o.deposits.attest(ctx, p.params.EvmConfirmations, me.Signer.Validator, me.LastAttestedNonce); err != nil {
		o.m.Errors.WithLabelValues("deposits").Inc()
		o.deposits.reset()
		errs = append(errs, err)
	}
	if err := o.confirmValset(ctx, p, me.Signer.Validator); err != nil {
		o.m.Errors.WithLabelValues("valset").Inc()
		errs = append(errs, err)
	}
	if err := o.confirmRoot(ctx, p, me.Signer.Validator); err != nil {
		o.m.Errors.WithLabelValues("root").Inc()
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
