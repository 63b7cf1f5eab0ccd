package web

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/cosmos/gogoproto/proto"
	"google.golang.org/grpc"

	"github.com/cosmos/cosmos-sdk/types/query"
	stakingtypes "github.com/cosmos/cosmos-sdk/x/staking/types"

	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/indexer"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// ParamSet is one module's params as name → value, in name order.
type ParamSet struct {
	Module string
	Params []Param
}

// Param is one parameter as its JSON shows it.
type Param struct{ Name, Value string }

type networkData struct {
	Title      string
	Validators []stakingtypes.Validator
	Params     []ParamSet
	Blocks     []indexer.Block
	Indexed    int64
}

// networkPage: the validators, and every market module's params.
func (s *Server) networkPage(r *http.Request) (string, any, error) {
	ctx := r.Context()
	vals, err := stakingtypes.NewQueryClient(s.conn).Validators(ctx, &stakingtypes.QueryValidatorsRequest{
		Status: stakingtypes.BondStatusBonded, Pagination: &query.PageRequest{Limit: 200},
	})
	if err != nil {
		return "", nil, err
	}
	d := networkData{Title: "Network", Validators: vals.Validators}
	slices.SortFunc(d.Validators, func(a, b stakingtypes.Validator) int { return b.Tokens.BigInt().Cmp(a.Tokens.BigInt()) })
	if d.Params, err = moduleParams(ctx, s.conn); err != nil {
		return "", nil, err
	}
	if d.Blocks, err = s.latestBlocks(ctx, 20); err != nil {
		return "", nil, err
	}
	if d.Indexed, err = s.db.Cursor(ctx); err != nil {
		return "", nil, err
	}
	return "network", d, nil
}

// moduleParams reads each market module's params and the bridge's and lists them as the
// chain's JSON names them.
func moduleParams(ctx context.Context, conn grpc.ClientConnInterface) ([]ParamSet, error) {
	reads := []struct {
		module string
		read   func() (proto.Message, error)
	}{
		{"provider", func() (proto.Message, error) {
			r, err := providertypes.NewQueryClient(conn).Params(ctx, &providertypes.QueryParamsRequest{})
			if err != nil {
				return nil, err
			}
			return &r.Params, nil
		}},
		{"offer", func() (proto.Message, error) {
			r, err := offertypes.NewQueryClient(conn).Params(ctx, &offertypes.QueryParamsRequest{})
			if err != nil {
				return nil, err
			}
			return &r.Params, nil
		}},
		{"auction", func() (proto.Message, error) {
			r, err := auctiontypes.NewQueryClient(conn).Params(ctx, &auctiontypes.QueryParamsRequest{})
			if err != nil {
				return nil, err
			}
			return &r.Params, nil
		}},
		{"settlement", func() (proto.Message, error) {
			r, err := settlementtypes.NewQueryClient(conn).Params(ctx, &settlementtypes.QueryParamsRequest{})
			if err != nil {
				return nil, err
			}
			return &r.Params, nil
		}},
		{"bridge", func() (proto.Message, error) {
			r, err := bridgetypes.NewQueryClient(conn).Params(ctx, &bridgetypes.QueryParamsRequest{})
			if err != nil {
				return nil, err
			}
			return &r.Params, nil
		}},
	}
	out := make([]ParamSet, 0, len(reads))
	for _, rd := range reads {
		m, err := rd.read()
		if err != nil {
			return nil, err
		}
		ps, err := paramSet(rd.module, m)
		if err != nil {
			return nil, err
		}
		out = append(out, ps)
	}
	return out, nil
}

// paramSet flattens one params message.
func paramSet(module string, m proto.Message) (ParamSet, error) {
	enc, err := chainclient.Encoding()
	if err != nil {
		return ParamSet{}, err
	}
	bz, err := enc.Codec.MarshalJSON(m)
	if err != nil {
		return ParamSet{}, err
	}
	var kv map[string]json.RawMessage
	if err := json.Unmarshal(bz, &kv); err != nil {
		return ParamSet{}, err
	}
	ps := ParamSet{Module: module}
	for k, v := range kv {
		ps.Params = append(ps.Params, Param{Name: k, Value: strings.Trim(string(v), `"`)})
	}
	slices.SortFunc(ps.Params, func(a, b Param) int { return strings.Compare(a.Name, b.Name) })
	return ps, nil
}
