package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/query"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

type querier struct{ Keeper }

var _ types.QueryServer = querier{}

// NewQuerier returns the x/bridge Query service.
func NewQuerier(k Keeper) types.QueryServer { return querier{k} }

func notFound(err error, what string) error {
	if errors.Is(err, collections.ErrNotFound) {
		return status.Errorf(codes.NotFound, "%s not found", what)
	}
	return err
}

func (q querier) Params(ctx context.Context, _ *types.QueryParamsRequest) (*types.QueryParamsResponse, error) {
	p, err := q.Keeper.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	return &types.QueryParamsResponse{Params: p}, nil
}

func (q querier) Status(ctx context.Context, _ *types.QueryStatusRequest) (*types.QueryStatusResponse, error) {
	p, err := q.Progress.Get(ctx)
	if err != nil {
		return nil, err
	}
	t, err := q.Totals.Get(ctx)
	if err != nil {
		return nil, err
	}
	return &types.QueryStatusResponse{Progress: p, Totals: t}, nil
}

func (q querier) Signers(ctx context.Context, _ *types.QuerySignersRequest) (*types.QuerySignersResponse, error) {
	it, err := q.Keeper.Signers.Iterate(ctx, nil)
	if err != nil {
		return nil, err
	}
	signers, err := it.Values()
	return &types.QuerySignersResponse{Signers: signers}, err
}

func (q querier) Orchestrator(ctx context.Context, req *types.QueryOrchestratorRequest) (*types.QueryOrchestratorResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	val, signer, err := q.orchestratorOf(ctx, req.Address)
	if err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	next, err := q.NextNonce(ctx, val)
	if err != nil {
		return nil, err
	}
	return &types.QueryOrchestratorResponse{Signer: signer, LastAttestedNonce: next - 1}, nil
}

func (q querier) Valset(ctx context.Context, req *types.QueryValsetRequest) (*types.QueryValsetResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	nonce := req.Nonce
	if nonce == 0 {
		p, err := q.Progress.Get(ctx)
		if err != nil {
			return nil, err
		}
		nonce = p.LastValsetNonce
	}
	vs, err := q.Valsets.Get(ctx, nonce)
	if err != nil {
		return nil, notFound(err, "valset")
	}
	confirms, err := collectConfirms(ctx, q.ValsetConfirms, nonce)
	return &types.QueryValsetResponse{Valset: vs, Confirms: confirms}, err
}

func (q querier) Deposit(ctx context.Context, req *types.QueryDepositRequest) (*types.QueryDepositResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	res := &types.QueryDepositResponse{}
	if d, err := q.Deposits.Get(ctx, req.Nonce); err == nil {
		res.Deposit = &d
	} else if !errors.Is(err, collections.ErrNotFound) {
		return nil, err
	}
	it, err := q.Votes.Iterate(ctx, collections.NewPrefixedPairRange[uint64, sdk.ValAddress](req.Nonce))
	if err != nil {
		return nil, err
	}
	kvs, err := it.KeyValues()
	if err != nil {
		return nil, err
	}
	for _, kv := range kvs {
		v, err := q.valCodec.BytesToString(kv.Key.K2())
		if err != nil {
			return nil, err
		}
		res.Votes = append(res.Votes, types.GenesisVote{Validator: v, Claim: kv.Value})
	}
	if res.Deposit == nil && len(res.Votes) == 0 {
		return nil, status.Errorf(codes.NotFound, "deposit %d not attested", req.Nonce)
	}
	return res, nil
}

// MaxAttestationsQueried bounds Query/Attestations: it reads the
// validator's standing votes among the first this many nonces after the
// last credited one.
const MaxAttestationsQueried = 1000

// Attestations returns a validator's standing votes for uncredited
// deposits, in nonce order: what its orchestrator compares with the EVM
// chain to supersede a vote for a block that was reorganised away.
func (q querier) Attestations(ctx context.Context, req *types.QueryAttestationsRequest) (*types.QueryAttestationsResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	val, err := q.valCodec.StringToBytes(req.Validator)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "validator: %v", err)
	}
	p, err := q.Progress.Get(ctx)
	if err != nil {
		return nil, err
	}
	last, err := q.LastAttested.Get(ctx, val)
	if err != nil && !errors.Is(err, collections.ErrNotFound) {
		return nil, err
	}
	res := &types.QueryAttestationsResponse{}
	for n := p.LastCreditedNonce + 1; n <= min(last, p.LastCreditedNonce+MaxAttestationsQueried); n++ {
		c, err := q.Votes.Get(ctx, collections.Join(n, sdk.ValAddress(val)))
		if errors.Is(err, collections.ErrNotFound) {
			continue // revoked
		}
		if err != nil {
			return nil, err
		}
		res.Claims = append(res.Claims, c)
	}
	return res, nil
}

func (q querier) Conflicts(ctx context.Context, req *types.QueryConflictsRequest) (*types.QueryConflictsResponse, error) {
	var pr *query.PageRequest
	if req != nil {
		pr = req.Pagination
	}
	cs, page, err := query.CollectionPaginate(ctx, q.Keeper.Conflicts, pr,
		func(_ collections.Pair[uint64, sdk.ValAddress], c types.Conflict) (types.Conflict, error) {
			return c, nil
		})
	return &types.QueryConflictsResponse{Conflicts: cs, Pagination: page}, err
}

func (q querier) Equivocations(ctx context.Context, req *types.QueryEquivocationsRequest) (*types.QueryEquivocationsResponse, error) {
	var pr *query.PageRequest
	if req != nil {
		pr = req.Pagination
	}
	es, page, err := query.CollectionPaginate(ctx, q.Keeper.Equivocations, pr,
		func(_ equivocationKey, e types.Equivocation) (types.Equivocation, error) {
			return e, nil
		})
	return &types.QueryEquivocationsResponse{Equivocations: es, Pagination: page}, err
}

func (q querier) Root(ctx context.Context, req *types.QueryRootRequest) (*types.QueryRootResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	root, err := q.findRoot(ctx, req.Epoch, req.ReadyOnly)
	if err != nil {
		return nil, err
	}
	confirms, err := collectConfirms(ctx, q.RootConfirms, root.Epoch)
	return &types.QueryRootResponse{Root: root, Confirms: confirms}, err
}

// findRoot returns the root of epoch, or with epoch 0 the newest (ready)
// kept root.
func (q querier) findRoot(ctx context.Context, epoch uint64, readyOnly bool) (types.PayoutRoot, error) {
	if epoch != 0 {
		r, err := q.Roots.Get(ctx, epoch)
		if err != nil {
			return r, notFound(err, "root")
		}
		if readyOnly && r.ReadyHeight == 0 {
			return r, status.Errorf(codes.NotFound, "root %d not ready", epoch)
		}
		return r, nil
	}
	it, err := q.Roots.Iterate(ctx, new(collections.Range[uint64]).Descending())
	if err != nil {
		return types.PayoutRoot{}, err
	}
	defer it.Close()
	for ; it.Valid(); it.Next() { // bounded by roots_kept
		r, err := it.Value()
		if err != nil {
			return r, err
		}
		if !readyOnly || r.ReadyHeight != 0 {
			return r, nil
		}
	}
	return types.PayoutRoot{}, status.Error(codes.NotFound, "no root")
}

func (q querier) Proof(ctx context.Context, req *types.QueryProofRequest) (*types.QueryProofResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	addr, err := types.ParseEvmAddress(req.EvmAddress)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	root, err := q.findRoot(ctx, req.Epoch, req.Epoch == 0)
	if err != nil {
		return nil, err
	}
	tree, err := q.rootTree(ctx, root.Epoch)
	if err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	cum, proof, err := tree.Proof(addr)
	if err != nil {
		return nil, status.Error(codes.NotFound, errorsmod.Wrapf(types.ErrProofNotFound, "%s in epoch %d", addr.Hex(), root.Epoch).Error())
	}
	res := &types.QueryProofResponse{Epoch: root.Epoch, Root: root.Root, Cumulative: cum.String()}
	for _, h := range proof {
		res.Proof = append(res.Proof, common.Hash(h).Hex())
	}
	return res, nil
}

func (q querier) Cumulative(ctx context.Context, req *types.QueryCumulativeRequest) (*types.QueryCumulativeResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	addr, err := types.ParseEvmAddress(req.EvmAddress)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	v, err := q.Keeper.Cumulative.Get(ctx, addr.Bytes())
	if errors.Is(err, collections.ErrNotFound) {
		return &types.QueryCumulativeResponse{Amount: "0"}, nil
	}
	if err != nil {
		return nil, err
	}
	return &types.QueryCumulativeResponse{Amount: v.String()}, nil
}

func (q querier) Misses(ctx context.Context, _ *types.QueryMissesRequest) (*types.QueryMissesResponse, error) {
	it, err := q.Keeper.Misses.Iterate(ctx, nil)
	if err != nil {
		return nil, err
	}
	ms, err := it.Values()
	return &types.QueryMissesResponse{Misses: ms}, err
}
