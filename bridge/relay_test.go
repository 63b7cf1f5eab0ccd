package bridge

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"cosmossdk.io/math"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/contracts/payout"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// TestHighestAcceptable pins the relayer's choice of the root to accept
// against an exhaustive scan: the highest proposed epoch above the floor
// whose acceptableAt has come, over gaps (epochs never proposed) anywhere,
// with the number of vault reads bounded.
func TestHighestAcceptable(t *testing.T) {
	type vault map[uint64]uint64 // epoch → acceptableAt of its pending root
	cases := []struct {
		name        string
		floor, last uint64
		now         uint64
		pending     vault
		want        uint64
		ok          bool
		maxReads    int
	}{
		{"one root, due", 0, 1, 100, vault{1: 100}, 1, true, 1},
		{"one root, not due", 0, 1, 99, vault{1: 100}, 0, false, 1},
		{"older due, newer waiting", 0, 3, 150, vault{1: 100, 2: 140, 3: 200}, 2, true, 2},
		{"all due: the newest", 0, 5, 1000, vault{1: 1, 2: 2, 3: 3, 4: 4, 5: 5}, 5, true, 3},
		{"none due", 4, 9, 10, vault{5: 20, 6: 20, 7: 30, 8: 40, 9: 50}, 0, false, 3},
		{"above the floor only", 3, 6, 100, vault{4: 50, 5: 60, 6: 200}, 5, true, 2},
		{"gap below the answer", 0, 6, 100, vault{1: 10, 5: 90, 6: 110}, 5, true, 5},
		{"gap above the answer", 0, 8, 100, vault{1: 10, 2: 20, 8: 110}, 2, true, 8},
		{"only gaps but the last", 0, 16, 100, vault{16: 100}, 16, true, 16},
		{"equal times", 0, 4, 50, vault{1: 50, 2: 50, 3: 50, 4: 51}, 3, true, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The exhaustive answer agrees with the case.
			var want uint64
			var ok bool
			for e := tc.floor + 1; e <= tc.last; e++ {
				if at, has := tc.pending[e]; has && at <= tc.now {
					want, ok = e, true
				}
			}
			require.Equal(t, tc.want, want, "the case's answer")
			require.Equal(t, tc.ok, ok)

			reads := 0
			got, found, err := highestAcceptable(tc.floor, tc.last, tc.now, func(e uint64) (bool, uint64, error) {
				require.Greater(t, e, tc.floor, "read at or below the floor")
				require.LessOrEqual(t, e, tc.last, "read above the last proposed epoch")
				reads++
				at, has := tc.pending[e]
				return has, at, nil
			})
			require.NoError(t, err)
			require.Equal(t, tc.ok, found)
			require.Equal(t, tc.want, got)
			require.LessOrEqual(t, reads, tc.maxReads, "vault reads")
		})
	}

	// A long run without gaps takes a logarithmic number of reads.
	pending := func(e uint64) (bool, uint64, error) { return true, 1000 + e, nil }
	reads := 0
	got, found, err := highestAcceptable(100, 4196, 1000+3000, func(e uint64) (bool, uint64, error) {
		reads++
		return pending(e)
	})
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, uint64(3000), got)
	require.LessOrEqual(t, reads, 13)

	// Random vaults (acceptableAt never decreasing with the epoch, as
	// proposals make it; gaps anywhere) agree with the exhaustive scan.
	rng := rand.New(rand.NewPCG(7, 7))
	for range 2000 {
		floor, last := uint64(rng.IntN(5)), uint64(0)
		v := map[uint64]uint64{}
		at := uint64(rng.IntN(10))
		for e := floor + 1; e <= floor+1+uint64(rng.IntN(40)); e++ {
			if rng.IntN(3) > 0 {
				at += uint64(rng.IntN(3))
				v[e], last = at, e
			}
		}
		if last == 0 {
			continue
		}
		now := uint64(rng.IntN(int(at) + 5))
		var want uint64
		var ok bool
		for e := floor + 1; e <= last; e++ {
			if a, has := v[e]; has && a <= now {
				want, ok = e, true
			}
		}
		got, found, err := highestAcceptable(floor, last, now, func(e uint64) (bool, uint64, error) {
			a, has := v[e]
			return has, a, nil
		})
		require.NoError(t, err)
		require.Equal(t, ok, found, "floor %d last %d now %d %v", floor, last, now, v)
		require.Equal(t, want, got, "floor %d last %d now %d %v", floor, last, now, v)
	}

	// A read error is returned as is.
	boom := errors.New("rpc down")
	_, _, err = highestAcceptable(0, 3, 10, func(uint64) (bool, uint64, error) { return false, 0, boom })
	require.ErrorIs(t, err, boom)
}

// fakeBridgeQueries answers the relayer's chain queries from memory: one
// valset and the ready roots by epoch (any other epoch is not ready).
type fakeBridgeQueries struct {
	bridgetypes.QueryClient
	valset bridgetypes.QueryValsetResponse
	ready  map[uint64]*bridgetypes.QueryRootResponse
}

func (f *fakeBridgeQueries) Valset(_ context.Context, req *bridgetypes.QueryValsetRequest, _ ...grpc.CallOption) (*bridgetypes.QueryValsetResponse, error) {
	if req.Nonce != 0 && req.Nonce != f.valset.Valset.Nonce {
		return nil, status.Errorf(codes.NotFound, "valset %d not found", req.Nonce)
	}
	return &f.valset, nil
}

func (f *fakeBridgeQueries) Root(_ context.Context, req *bridgetypes.QueryRootRequest, _ ...grpc.CallOption) (*bridgetypes.QueryRootResponse, error) {
	if req.Epoch == 0 {
		var newest uint64
		for e := range f.ready {
			newest = max(newest, e)
		}
		if newest == 0 {
			return nil, status.Error(codes.NotFound, "no root")
		}
		return f.ready[newest], nil
	}
	if r, ok := f.ready[req.Epoch]; ok {
		return r, nil
	}
	// What the chain says over ABCI: the code is lost, the text kept.
	return nil, fmt.Errorf("rpc error: code = Unknown desc = root %d not ready", req.Epoch)
}

// TestRelayerProposesEveryReadyRoot: on a real geth --dev, the relayer
// proposes every ready root the vault has not seen, in epoch order, leaving
// out one the chain has not made ready; roots someone else proposed first
// are not proposed again, and a newer proposal leaves every pending root's
// timelock where it was.
func TestRelayerProposesEveryReadyRoot(t *testing.T) {
	if testing.Short() {
		t.Skip("starts geth --dev")
	}
	if os.Getenv("IDLEGPU_GETH") == "" {
		t.Skip("IDLEGPU_GETH is not set: build geth with `make geth` and set IDLEGPU_GETH=$PWD/build/tools/geth-v1.17.10")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	g := startGeth(t, ctx)
	deployer, renter, relayerKey, other, val := g.actor("deployer"), g.actor("renter"), g.actor("relayer"), g.actor("other relayer"), g.actor("validator")
	g.fund(deployer.Addr, renter.Addr, relayerKey.Addr, other.Addr)
	token := g.deployToken(deployer)
	vs, err := payout.NewValset(1, []payout.Member{{Address: val.Addr, Power: 1}})
	require.NoError(t, err)
	vaultID := crypto.Keccak256Hash([]byte("relay roots"))
	v := bindings.NewSettlementVault()
	vaultAddr, tx, err := bind.DeployContract(g.opts(deployer), common.FromHex(bindings.SettlementVaultMetaData.Bin), g.client,
		v.PackConstructor(token, vaultID, deployer.Addr, 3600, vaultValset(vs)))
	require.NoError(t, err)
	g.wait(tx.Hash())
	cmd := &cobra.Command{}
	addEthRPCFlag(cmd)
	require.NoError(t, cmd.Flags().Set(flagEthRPC, g.URL))
	e, err := dialEVM(ctx, cmd, vaultAddr)
	require.NoError(t, err)
	usdc := bindings.NewTestUSDC()
	tokenC := usdc.Instance(g.client, token)
	g.send(deployer, tokenC, usdc.PackMint(renter.Addr, big.NewInt(1_000)))
	g.send(renter, tokenC, usdc.PackApprove(vaultAddr, big.NewInt(1_000)))
	g.send(renter, e.vaultC, v.PackDeposit(big.NewInt(1_000), renter.Addr))

	domain := payout.Domain{VaultID: vaultID, ChainID: g.chain, Vault: vaultAddr}
	p := bridgeParams{params: bridgetypes.Params{RootsKept: 8}, domain: domain}
	q := &fakeBridgeQueries{ready: map[uint64]*bridgetypes.QueryRootResponse{}}
	q.valset.Valset = bridgetypes.Valset{Nonce: 1, Checkpoint: domain.ValsetCheckpoint(vs).Hex(),
		Members: []bridgetypes.ValsetMember{{EvmAddress: val.Addr.Hex(), Power: vs.Powers[0]}}}
	// ready makes epoch's root (epoch × 10 to one account) ready on the
	// "chain" and returns the vault's proposal of it.
	ready := func(epoch uint64) []byte {
		tr, err := payout.NewTree([]payout.Entry{{Account: renter.Addr, Cumulative: big.NewInt(int64(10 * epoch))}})
		require.NoError(t, err)
		d, err := domain.RootDigest(1, epoch, tr.Root(), tr.Total())
		require.NoError(t, err)
		sig, err := bridgetypes.SignDigest(val.key, d)
		require.NoError(t, err)
		q.ready[epoch] = &bridgetypes.QueryRootResponse{
			Root: bridgetypes.PayoutRoot{Epoch: epoch, Root: tr.Root().Hex(), TotalCumulative: math.NewInt(int64(10 * epoch)),
				ValsetNonce: 1, Digest: d.Hex(), Recipients: 1, ReadyHeight: 1},
			Confirms: []bridgetypes.Confirm{{EvmAddress: val.Addr.Hex(), Signature: sig}},
		}
		sigs, err := signatures(vs, q.ready[epoch].Confirms, d)
		require.NoError(t, err)
		return v.PackProposeRoot(vaultValset(vs), vaultSigs(sigs), epoch, tr.Root(), tr.Total())
	}
	pending := func(epoch uint64) bindings.PendingRootsOutput {
		pr, err := call(ctx, e, v.PackPendingRoots(epoch), v.UnpackPendingRoots)
		require.NoError(t, err)
		return pr
	}
	lastProposed := func() uint64 {
		last, err := call(ctx, e, v.PackLastProposedEpoch(), v.UnpackLastProposedEpoch)
		require.NoError(t, err)
		return last
	}

	r := &relayer{q: q, key: relayerKey.key, evm: e, m: newMetrics("test"), log: discardLogger()}
	require.NoError(t, r.proposeRoots(ctx, p), "nothing ready: nothing to do")
	for _, ep := range []uint64{1, 2, 4} { // 3 is not ready
		ready(ep)
	}
	require.NoError(t, r.proposeRoots(ctx, p))
	require.Equal(t, uint64(4), lastProposed())
	for _, ep := range []uint64{1, 2, 4} {
		require.Equal(t, ep, pending(ep).Epoch, "epoch %d proposed", ep)
	}
	require.Zero(t, pending(3).Epoch, "epoch 3 was not ready")
	first := pending(1)
	require.NoError(t, r.proposeRoots(ctx, p), "nothing new: nothing to do")

	// Someone else relays 5 and 6 first; the relayer proposes only 7.
	g.send(other, e.vaultC, ready(5))
	g.send(other, e.vaultC, ready(6))
	ready(7)
	require.NoError(t, r.proposeRoots(ctx, p))
	require.Equal(t, uint64(7), lastProposed())
	require.Equal(t, first, pending(1), "root 1 keeps its own timelock")
	require.Less(t, pending(1).AcceptableAt, pending(7).AcceptableAt)
}
