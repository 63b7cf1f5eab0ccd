package daemon

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/cosmos/cosmos-sdk/client"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"google.golang.org/grpc"

	"github.com/idlegpu/idlegpu/agent/hostcheck"
	"github.com/idlegpu/idlegpu/chainclient"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// fakeMarket is the offer and provider state of one provider, changed by
// the transactions it is sent as the chain would: offers paused, reopened
// and closed, GPUs deregistered, stake unbonded. It keeps each
// transaction's messages.
type fakeMarket struct {
	mu     sync.Mutex
	offers map[uint64]offertypes.Offer
	gpus   []providertypes.GPU
	stake  sdk.Coin
	txs    [][]sdk.Msg
}

func (m *fakeMarket) Submit(_ context.Context, msgs ...sdk.Msg) (*sdk.TxResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.txs = append(m.txs, msgs)
	for _, msg := range msgs {
		switch msg := msg.(type) {
		case *offertypes.MsgUpdateOffer:
			o := m.offers[msg.OfferId]
			o.Terms = msg.Terms
			if msg.Status != offertypes.OFFER_STATUS_UNSPECIFIED {
				o.Status = msg.Status
			}
			m.offers[msg.OfferId] = o
		case *offertypes.MsgCloseOffer:
			delete(m.offers, msg.OfferId)
		case *providertypes.MsgDeregisterGPU:
			m.gpus = slices.DeleteFunc(m.gpus, func(g providertypes.GPU) bool { return g.Uuid == msg.Uuid })
		case *providertypes.MsgUnbond:
			m.stake = m.stake.Sub(msg.Amount)
		default:
			return nil, errors.New("fake market: unexpected message")
		}
	}
	return &sdk.TxResponse{Height: 10, TxHash: "AB"}, nil
}

// sent is every transaction since the last call.
func (m *fakeMarket) sent() [][]sdk.Msg {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.txs
	m.txs = nil
	return out
}

func (m *fakeMarket) status(id uint64) offertypes.OfferStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.offers[id].Status
}

func (*fakeMarket) HeightAt(context.Context, time.Time) (int64, error) {
	return 0, errors.New("no chain")
}
func (*fakeMarket) FollowHeaders(context.Context, int64, func(chainclient.Header) error) error {
	return errors.New("no chain")
}
func (*fakeMarket) Context() client.Context { return client.Context{} }

type (
	marketOffers struct {
		offertypes.QueryClient
		*fakeMarket
	}
	marketProviders struct {
		providertypes.QueryClient
		*fakeMarket
	}
)

func (m marketOffers) ProviderOffers(context.Context, *offertypes.QueryProviderOffersRequest, ...grpc.CallOption) (*offertypes.QueryProviderOffersResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	res := &offertypes.QueryProviderOffersResponse{}
	for _, id := range slices.Sorted(maps.Keys(m.offers)) {
		res.Offers = append(res.Offers, m.offers[id])
	}
	return res, nil
}

func (m marketProviders) Provider(context.Context, *providertypes.QueryProviderRequest, ...grpc.CallOption) (*providertypes.QueryProviderResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return &providertypes.QueryProviderResponse{Provider: providertypes.Provider{Operator: testProvider, Region: "eu-de", Stake: m.stake}}, nil
}

func (m marketProviders) ProviderGPUs(context.Context, *providertypes.QueryProviderGPUsRequest, ...grpc.CallOption) (*providertypes.QueryProviderGPUsResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return &providertypes.QueryProviderGPUsResponse{Gpus: slices.Clone(m.gpus)}, nil
}

// fakeHost answers each round of host checks with its current results.
type fakeHost struct {
	mu sync.Mutex
	rs []hostcheck.Result
}

func (h *fakeHost) set(rs ...hostcheck.Result) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.rs = rs
}

func (h *fakeHost) Run(context.Context) []hostcheck.Result {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.rs)
}
