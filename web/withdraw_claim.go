package web

import (
	"context"
	"encoding/json"
	"math/big"
	"strings"

	sdkmath "cosmossdk.io/math"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// A withdrawal is burned on the chain and paid on the EVM chain: the chain
// puts each address's cumulative withdrawals into the epoch's payout root,
// validators sign it, a relayer posts it to the vault, and a claim against
// it pays the address what the vault has not paid it yet. The withdraw page
// follows an address's withdrawals to that claim: what the newest ready
// root holds for it, what is still waiting for a root, and the claim's
// arguments and calldata for any wallet. The app reads no EVM chain, so it
// cannot say whether the root was posted yet or what was already claimed:
// the vault refuses a claim that pays nothing (NothingToClaim).

// withdrawClaim is the claim an address can make from the newest ready root.
type withdrawClaim struct {
	// Ready is false while no ready root holds the address.
	Ready bool
	Epoch uint64
	Root  string
	// Cumulative is what the root holds for the address, in display units
	// and in base units (the claim's argument); Pending what was withdrawn
	// since, for the next root.
	Cumulative, CumulativeBase, Pending string
	Proof                               []string
	Vault                               string
	ChainID                             uint64
	// Calldata is claim(account, cumulative, proof) ABI-encoded for the
	// vault: what any wallet sends to it.
	Calldata string
	// Refusals is claimRefusals, for the page's claim button.
	Refusals string
}

// claimRefusals maps the selector of each custom error the vault's claim
// can revert with to what it means for the claimant, as JSON: a wallet
// refuses a reverting claim at its gas estimate and reports the revert
// data, which the page turns into words (the app reads no EVM chain; the
// wallet's node does).
var claimRefusals = func() string {
	parsed, err := bindings.SettlementVaultMetaData.ParseABI()
	if err != nil {
		panic(err)
	}
	words := map[string]string{
		"NoAcceptedRoot":   "the vault has accepted no payout root yet: a relayer posts the root, then its timelock runs. Try again later.",
		"InvalidProof":     "the vault has not accepted this payout root yet (a relayer has not posted it, or its timelock has not passed). Try again later.",
		"NothingToClaim":   "the vault has already paid this address everything this root holds.",
		"EnforcedPause":    "the vault is paused by its guardian; claims resume when it is unpaused.",
		"ClaimsAboveTotal": "the vault's accepted root pays out more than its total; report it to the validators.",
	}
	out := map[string]string{}
	for name, text := range words {
		e, ok := parsed.Errors[name]
		if !ok {
			panic("the vault's ABI has no error " + name)
		}
		out[hexutil.Encode(e.ID.Bytes()[:4])] = name + ": " + text
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// claimFor reads the newest ready root's leaf for evm and compares it with
// everything withdrawn to evm so far (withdrawn, base units).
func (s *Server) claimFor(ctx context.Context, p bridgetypes.Params, evm string, withdrawn sdkmath.Int) (*withdrawClaim, error) {
	c := &withdrawClaim{Vault: p.VaultAddress, ChainID: p.EvmChainId, Refusals: claimRefusals}
	res, err := bridgetypes.NewQueryClient(s.conn).Proof(ctx, &bridgetypes.QueryProofRequest{EvmAddress: evm})
	if status.Code(err) == codes.NotFound {
		c.Pending = s.units.Amount(withdrawn, p.Denom)
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	cum, ok := sdkmath.NewIntFromString(res.Cumulative)
	if !ok {
		return nil, badRequest("the chain's proof for %s has cumulative %q", evm, res.Cumulative)
	}
	c.Ready, c.Epoch, c.Root, c.Proof = true, res.Epoch, res.Root, res.Proof
	c.Cumulative, c.CumulativeBase = s.units.Amount(cum, p.Denom), cum.String()
	if withdrawn.GT(cum) {
		c.Pending = s.units.Amount(withdrawn.Sub(cum), p.Denom)
	}
	proof := make([][32]byte, len(res.Proof))
	for i, h := range res.Proof {
		proof[i] = common.HexToHash(h)
	}
	c.Calldata = hexutil.Encode(bindings.NewSettlementVault().PackClaim(common.HexToAddress(evm), new(big.Int).Set(cum.BigInt()), proof))
	return c, nil
}

// proofList writes a proof as the JSON array a wallet's contract call takes.
func proofList(proof []string) string { return `["` + strings.Join(proof, `","`) + `"]` }
