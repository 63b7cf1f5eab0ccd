package bridge

import (
	"context"
	"fmt"
	"math/big"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/ethereum/go-ethereum/common"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/contracts/payout"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// bridgeParams is what every command needs from the chain's params: the
// vault's domain (every digest binds it) and the confirmation depth.
type bridgeParams struct {
	params bridgetypes.Params
	domain payout.Domain
}

// loadParams reads x/bridge's params and the vault they name.
func loadParams(ctx context.Context, q bridgetypes.QueryClient) (bridgeParams, error) {
	res, err := q.Params(ctx, &bridgetypes.QueryParamsRequest{})
	if err != nil {
		return bridgeParams{}, fmt.Errorf("bridge params: %w", err)
	}
	vault, err := bridgetypes.ParseEvmAddress(res.Params.VaultAddress)
	if err != nil {
		return bridgeParams{}, fmt.Errorf("bridge params: vault_address %q: %w", res.Params.VaultAddress, err)
	}
	id, err := parseHash(res.Params.VaultId)
	if err != nil {
		return bridgeParams{}, fmt.Errorf("bridge params: vault_id: %w", err)
	}
	return bridgeParams{
		params: res.Params,
		domain: payout.Domain{VaultID: id, ChainID: new(big.Int).SetUint64(res.Params.EvmChainId), Vault: vault},
	}, nil
}

// parseHash reads a 0x-prefixed 32-byte hex string exactly.
func parseHash(s string) (common.Hash, error) {
	b, err := hexBytes(s)
	if err != nil || len(b) != 32 {
		return common.Hash{}, fmt.Errorf("%q is not 0x and 32 bytes of hex", s)
	}
	return common.BytesToHash(b), nil
}

func hexBytes(s string) ([]byte, error) {
	if len(s) < 2 || s[:2] != "0x" {
		return nil, fmt.Errorf("%q lacks 0x", s)
	}
	return common.ParseHexOrString(s)
}

// checkedValset rebuilds the checkpoint from the members: an orchestrator
// signs, and a relayer spends gas, only on a checkpoint it computed itself.
func (p bridgeParams) checkedValset(v bridgetypes.Valset) (payout.Valset, common.Hash, error) {
	pv, err := v.VaultValset()
	if err != nil {
		return pv, common.Hash{}, err
	}
	cp := p.domain.ValsetCheckpoint(pv)
	if got, err := parseHash(v.Checkpoint); err != nil || got != cp {
		return pv, cp, fmt.Errorf("valset %d: the chain's checkpoint %s is not %s computed from its members", v.Nonce, v.Checkpoint, cp)
	}
	return pv, cp, nil
}

// checkedRoot recomputes a root's digest from its fields.
func (p bridgeParams) checkedRoot(r bridgetypes.PayoutRoot) (common.Hash, common.Hash, error) {
	root, err := parseHash(r.Root)
	if err != nil {
		return common.Hash{}, common.Hash{}, fmt.Errorf("root %d: %w", r.Epoch, err)
	}
	d, err := p.domain.RootDigest(r.ValsetNonce, r.Epoch, root, r.TotalCumulative.BigInt())
	if err != nil {
		return root, common.Hash{}, err
	}
	if got, err := parseHash(r.Digest); err != nil || got != d {
		return root, d, fmt.Errorf("root %d: the chain's digest %s is not %s computed from its fields", r.Epoch, r.Digest, d)
	}
	return root, d, nil
}

// vaultValset is the bindings' form of a valset.
func vaultValset(v payout.Valset) bindings.SettlementVaultValset {
	return bindings.SettlementVaultValset{Validators: v.Validators, Powers: v.Powers, Nonce: v.Nonce}
}

// vaultSigs is the bindings' form of signatures.
func vaultSigs(sigs []payout.Signature) []bindings.SettlementVaultSignature {
	out := make([]bindings.SettlementVaultSignature, len(sigs))
	for i, s := range sigs {
		out[i] = bindings.SettlementVaultSignature{Index: s.Index, V: s.V, R: s.R, S: s.S}
	}
	return out
}

// queryClient is x/bridge's query client over a client context.
func queryClient(c client.Context) bridgetypes.QueryClient { return bridgetypes.NewQueryClient(c) }
