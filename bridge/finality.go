package bridge

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/spf13/cobra"
)

const flagFinality = "finality"

// Where the orchestrator's attestable range ends (--finality).
const (
	// finalityAuto: the node's finalized block once it serves one, head −
	// evm_confirmations until then.
	finalityAuto = "auto"
	// finalityFinalized: the finalized block only; without one, wait.
	finalityFinalized = "finalized"
	// finalityDepth: head − evm_confirmations, whatever the node says is final.
	finalityDepth = "depth"
)

// evmChain is what the deposit attester reads from the EVM node: headers
// and the vault's logs. *ethclient.Client and the simulated backend's
// client are both one.
type evmChain interface {
	bind.ContractBackend
	BlockNumber(ctx context.Context) (uint64, error)
}

// blockRef names one EVM block.
type blockRef struct {
	Number uint64
	Hash   common.Hash
}

// attestable is the newest EVM block whose deposits may be attested and
// where that bound comes from ("finalized" or "depth").
type attestable struct {
	blockRef
	Source string
}

// finality decides the attestable bound each round.
type finality struct {
	mode string
	log  *slog.Logger
	// sawFinalized: in auto mode, once the node has served a finalized
	// block it is used from then on; an error reading it is then an error,
	// not a reason to attest deeper than finality.
	sawFinalized bool
	// source is the last source used, so a change is logged once.
	source string
}

func addFinalityFlag(cmd *cobra.Command) {
	cmd.Flags().String(flagFinality, finalityAuto,
		"how far deposits are attested: auto (the EVM node's finalized block when it serves one, else head − evm_confirmations), finalized (only up to finalized; wait without one) or depth (head − evm_confirmations)")
}

func newFinality(mode string, log *slog.Logger) (*finality, error) {
	switch mode {
	case finalityAuto, finalityFinalized, finalityDepth:
		return &finality{mode: mode, log: log}, nil
	}
	return nil, fmt.Errorf("--%s must be auto, finalized or depth, got %q", flagFinality, mode)
}

// bound is the newest attestable block given the node's head, or nil when
// there is none yet (the chain is shorter than the confirmation depth).
func (f *finality) bound(ctx context.Context, c evmChain, head, confirmations uint64) (*attestable, error) {
	if f.mode != finalityDepth {
		h, err := c.HeaderByNumber(ctx, big.NewInt(int64(rpc.FinalizedBlockNumber)))
		switch {
		case err == nil && h != nil:
			f.sawFinalized = true
			return f.use(&attestable{blockRef{h.Number.Uint64(), h.Hash()}, finalityFinalized}), nil
		case f.mode == finalityFinalized:
			return nil, fmt.Errorf("the EVM node serves no finalized block (--%s %s waits for one): %v", flagFinality, finalityFinalized, err)
		case f.sawFinalized:
			return nil, fmt.Errorf("the EVM node's finalized block: %v", err)
		}
	}
	if head < confirmations {
		return nil, nil
	}
	h, err := c.HeaderByNumber(ctx, new(big.Int).SetUint64(head-confirmations))
	if err != nil {
		return nil, fmt.Errorf("EVM block %d: %w", head-confirmations, err)
	}
	return f.use(&attestable{blockRef{h.Number.Uint64(), h.Hash()}, finalityDepth}), nil
}

// use logs the source the first time and whenever it changes.
func (f *finality) use(a *attestable) *attestable {
	if a.Source != f.source {
		f.log.Info("deposits attested up to", "source", a.Source, "block", a.Number, "mode", f.mode)
		f.source = a.Source
	}
	return a
}
