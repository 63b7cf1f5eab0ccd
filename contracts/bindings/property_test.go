package bindings_test

import (
	"fmt"
	"math/big"
	mrand "math/rand"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/contracts/payout"
)

// TestPropertyNeverPaysMoreThanDeposited runs random deposits, roots and
// claims: honest trees, trees whose leaves add up to more than their total,
// leaves that shrink. Whatever the sequence, the vault never pays out more
// than was deposited, never more than the accepted total, never more than a
// leaf, and its balance is always deposits less payouts.
func TestPropertyNeverPaysMoreThanDeposited(t *testing.T) {
	var paidClaims, refusedClaims, roots, deposits int
	for _, seed := range []uint64{1, 2, 3, 4} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			e := newEnv(t, 4)
			rng := rand.New(rand.NewPCG(seed, 0x1d1e))
			accounts := []common.Address{e.providers[0].addr, e.providers[1].addr, e.providers[2].addr, e.relayer.addr}
			leaf := map[common.Address]*big.Int{} // the largest leaf ever accepted per account
			paidTo := map[common.Address]*big.Int{}
			for _, a := range accounts {
				leaf[a], paidTo[a] = new(big.Int), new(big.Int)
			}
			var current *payout.Tree
			epoch := uint64(0)

			for step := 0; step < 25; step++ {
				switch op := rng.IntN(3); {
				case op == 0 || e.totalDeposited().Sign() == 0:
					r := e.renters[rng.IntN(len(e.renters))]
					e.deposit(r, big.NewInt(1+rng.Int64N(50_000_000)), r.addr)
					deposits++
				case op == 1:
					// A tree: leaves may sum to anything up to 1.5x the
					// deposits; the total is what the validators sign, at
					// least the accepted one and at most the deposits.
					deposited := e.totalDeposited()
					acc := e.accepted().TotalCumulative
					var entries []payout.Entry
					for _, a := range accounts {
						if rng.IntN(4) == 0 {
							continue
						}
						max := new(big.Int).Div(new(big.Int).Mul(deposited, big.NewInt(3)), big.NewInt(2*int64(len(accounts))))
						entries = append(entries, payout.Entry{Account: a, Cumulative: new(big.Int).Rand(rngSource(rng), new(big.Int).Add(max, big.NewInt(1)))})
					}
					if len(entries) == 0 {
						continue
					}
					tr := tree(t, entries...)
					span := new(big.Int).Sub(deposited, acc)
					total := new(big.Int).Add(acc, new(big.Int).Rand(rngSource(rng), new(big.Int).Add(span, big.NewInt(1))))
					epoch += 1 + uint64(rng.IntN(3))
					sigs := e.sign(e.rootDigest(epoch, tr.Root(), total), 0, 1, 2)
					e.send(e.relayer, e.vaultC, e.vault.PackProposeRoot(toValset(e.valset), sigs, epoch, tr.Root(), total))
					e.wait(rootDelay)
					e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot(epoch))
					current = tr
					roots++
					for _, en := range entries {
						if en.Cumulative.Cmp(leaf[en.Account]) > 0 {
							leaf[en.Account] = new(big.Int).Set(en.Cumulative)
						}
					}
				default:
					if current == nil {
						continue
					}
					entries := current.Entries()
					en := entries[rng.IntN(len(entries))]
					before := e.balance(en.Account)
					cum, proof, err := current.Proof(en.Account)
					require.NoError(t, err)
					data := e.vault.PackClaim(en.Account, cum, toProof(proof))
					already := e.claimed(en.Account)
					owed := new(big.Int).Sub(cum, already)
					fits := new(big.Int).Add(e.totalClaimed(), owed).Cmp(e.accepted().TotalCumulative) <= 0
					if owed.Sign() > 0 && fits {
						e.send(e.relayer, e.vaultC, data)
						got := new(big.Int).Sub(e.balance(en.Account), before)
						requireAmount(t, owed, got)
						paidTo[en.Account].Add(paidTo[en.Account], got)
						paidClaims++
					} else {
						_, err := e.vaultC.CallRaw(nil, data)
						require.Error(t, err, "a claim past its leaf or the total was paid")
						refusedClaims++
					}
				}
				// The invariants, after every step.
				e.checkSolvent()
				paid := new(big.Int)
				for _, a := range accounts {
					require.LessOrEqual(t, paidTo[a].Cmp(leaf[a]), 0, "paid %s more than its largest leaf", a)
					requireAmount(t, paidTo[a], e.claimed(a))
					paid.Add(paid, paidTo[a])
				}
				requireAmount(t, paid, e.totalClaimed())
				require.LessOrEqual(t, paid.Cmp(e.totalDeposited()), 0)
			}
		})
	}
	t.Logf("%d deposits, %d roots, %d claims paid, %d refused", deposits, roots, paidClaims, refusedClaims)
	require.Positive(t, paidClaims)
	require.Positive(t, refusedClaims)
}

// rngSource adapts a math/rand/v2 generator to big.Int.Rand.
func rngSource(r *rand.Rand) *mrand.Rand { return mrand.New(randV1{r}) }

// randV1 is a math/rand (v1) source over a v2 generator.
type randV1 struct{ r *rand.Rand }

func (s randV1) Int63() int64 { return s.r.Int64() }
func (s randV1) Seed(int64)   {}

// requireAmount compares amounts by value.
func requireAmount(t testing.TB, want, got *big.Int) {
	t.Helper()
	require.Zero(t, want.Cmp(got), "want %s, got %s", want, got)
}

// TestPropertyOlderRootNeverDelayed runs random proposals, acceptances,
// clock moves, pauses and unpauses, deposits and claims against a model of
// the acceptance rule. After every step, every root ever proposed is asked
// to be accepted at the head block (eth_call), and the vault must answer
// exactly what the model says: a root is acceptable from exactly rootDelay
// after its own proposal, whatever was proposed after it, until a later
// root is accepted (RootSuperseded) or a proposal made while paused cancels
// it (RootCancelled). Accepted epoch and total never decrease, and claims
// never exceed the accepted total.
func TestPropertyOlderRootNeverDelayed(t *testing.T) {
	counts := map[string]int{}
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6, 7, 8} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			e := newEnv(t, 4)
			rng := rand.New(rand.NewPCG(seed, 0x7007))
			accounts := []common.Address{e.providers[0].addr, e.providers[1].addr, e.providers[2].addr}
			e.deposit(e.renters[0], usdc(100), e.renters[0].addr)

			type proposed struct {
				tree         *payout.Tree
				total        *big.Int
				acceptableAt uint64
				deleted      bool // accepted, so its entry is gone
			}
			roots := map[uint64]*proposed{}
			var epochs []uint64 // proposed, in order
			var accEpoch, cancelled, last uint64
			accTotal := new(big.Int)
			var accTree *payout.Tree
			paused := false
			delay := uint64(rootDelay / time.Second)

			// expect is the model's answer to acceptRoot(epoch) at time now.
			expect := func(epoch, now uint64) any {
				r := roots[epoch]
				switch {
				case paused:
					return &bindings.SettlementVaultEnforcedPause{}
				case r == nil || r.deleted:
					return &bindings.SettlementVaultNoPendingRoot{Epoch: epoch}
				case epoch <= accEpoch:
					return &bindings.SettlementVaultRootSuperseded{Epoch: epoch, AcceptedEpoch: accEpoch}
				case epoch <= cancelled:
					return &bindings.SettlementVaultRootCancelled{Epoch: epoch, CancelledThrough: cancelled}
				case now < r.acceptableAt:
					return &bindings.SettlementVaultTimelockNotExpired{AcceptableAt: r.acceptableAt, Timestamp: new(big.Int).SetUint64(now)}
				case r.total.Cmp(accTotal) < 0:
					return &bindings.SettlementVaultTotalDecreased{TotalCumulative: r.total, Accepted: accTotal}
				}
				return nil
			}
			headTime := func() uint64 {
				h, err := e.client.HeaderByNumber(e.ctx, nil)
				require.NoError(t, err)
				return h.Time
			}
			// acceptable lists the epochs the model says can be accepted now.
			acceptable := func(now uint64) []uint64 {
				var out []uint64
				for _, ep := range epochs {
					if expect(ep, now) == nil {
						out = append(out, ep)
					}
				}
				return out
			}

			for step := 0; step < 60; step++ {
				switch op := rng.IntN(12); {
				case op < 3: // propose the next epoch (sometimes skipping some)
					deposited := e.totalDeposited()
					span := new(big.Int).Sub(deposited, accTotal)
					total := new(big.Int).Add(accTotal, new(big.Int).Rand(rngSource(rng), new(big.Int).Add(span, big.NewInt(1))))
					var entries []payout.Entry
					left := new(big.Int).Set(total)
					for _, a := range accounts {
						amt := new(big.Int).Rand(rngSource(rng), new(big.Int).Add(left, big.NewInt(1)))
						left.Sub(left, amt)
						if amt.Sign() > 0 {
							entries = append(entries, payout.Entry{Account: a, Cumulative: amt})
						}
					}
					if len(entries) == 0 {
						entries = []payout.Entry{{Account: accounts[0], Cumulative: big.NewInt(1)}}
					}
					tr := tree(t, entries...)
					epoch := last + 1 + uint64(rng.IntN(2))
					sigs := e.sign(e.rootDigest(epoch, tr.Root(), total), 0, 1, 2)
					rcpt := e.send(e.relayer, e.vaultC, e.vault.PackProposeRoot(toValset(e.valset), sigs, epoch, tr.Root(), total))
					head, err := e.client.HeaderByNumber(e.ctx, rcpt.BlockNumber)
					require.NoError(t, err)
					if paused && last > accEpoch && last > cancelled {
						cancelled = last
						ev, err := e.vault.UnpackRootsCancelledEvent(rcpt.Logs[0])
						require.NoError(t, err)
						require.Equal(t, last, ev.ThroughEpoch)
						counts["cancelling proposals"]++
					} else {
						require.Len(t, rcpt.Logs, 1, "only RootProposed")
					}
					roots[epoch] = &proposed{tree: tr, total: total, acceptableAt: head.Time + delay}
					epochs = append(epochs, epoch)
					last = epoch
					counts["proposals"]++
				case op < 6: // accept: the highest acceptable root, or any
					now := headTime()
					ok := acceptable(now)
					if len(ok) == 0 {
						continue
					}
					epoch := ok[len(ok)-1]
					if rng.IntN(2) == 0 {
						epoch = ok[rng.IntN(len(ok))]
					}
					rcpt := e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot(epoch))
					ev, err := e.vault.UnpackRootAcceptedEvent(rcpt.Logs[0])
					require.NoError(t, err)
					require.Equal(t, epoch, ev.Epoch)
					roots[epoch].deleted = true
					accEpoch, accTotal, accTree = epoch, roots[epoch].total, roots[epoch].tree
					counts["acceptances"]++
				case op < 8: // move the clock: a little, about half or a whole delay
					d := []time.Duration{time.Second, rootDelay / 3, rootDelay / 2, rootDelay - time.Second, rootDelay}[rng.IntN(5)]
					e.wait(d)
				case op == 8: // the guardian pauses or unpauses
					if paused {
						e.send(e.guardian, e.vaultC, e.vault.PackUnpause())
					} else {
						e.send(e.guardian, e.vaultC, e.vault.PackPause())
					}
					paused = !paused
					counts["pause toggles"]++
				case op == 9: // a deposit
					if paused {
						continue
					}
					r := e.renters[rng.IntN(len(e.renters))]
					e.deposit(r, big.NewInt(1+rng.Int64N(20_000_000)), r.addr)
				default: // a claim against the accepted root
					if paused || accTree == nil {
						continue
					}
					entries := accTree.Entries()
					en := entries[rng.IntN(len(entries))]
					owed := new(big.Int).Sub(en.Cumulative, e.claimed(en.Account))
					if owed.Sign() <= 0 || new(big.Int).Add(e.totalClaimed(), owed).Cmp(accTotal) > 0 {
						continue
					}
					e.send(e.relayer, e.vaultC, e.claimData(accTree, en.Account))
					counts["claims"]++
				}

				// After every step: every proposed root answers as modelled.
				now := headTime()
				for _, ep := range epochs {
					want := expect(ep, now)
					_, err := e.vaultC.CallRaw(nil, e.vault.PackAcceptRoot(ep))
					if want == nil {
						require.NoError(t, err, "epoch %d should be acceptable at %d", ep, now)
						continue
					}
					require.Error(t, err, "epoch %d accepted at %d, model says %T%+v", ep, now, want, want)
					got, uerr := e.vault.UnpackError(revertDataOf(t, err))
					require.NoError(t, uerr)
					requireSameError(t, want, got)
					counts[fmt.Sprintf("%T", want)]++
					if r := roots[ep]; !r.deleted {
						p := e.pending(ep)
						require.Equal(t, r.acceptableAt, p.AcceptableAt, "epoch %d keeps its own timelock", ep)
						require.Equal(t, [32]byte(r.tree.Root()), p.Root)
					}
				}
				acc := e.accepted()
				require.Equal(t, accEpoch, acc.Epoch, "accepted epoch")
				requireAmount(t, accTotal, acc.TotalCumulative)
				require.Equal(t, last, e.lastProposed())
				require.Equal(t, cancelled, e.cancelledThrough())
				e.checkSolvent() // claims within the accepted total, within the deposits
			}
		})
	}
	t.Logf("%v", counts)
	for _, k := range []string{"acceptances", "cancelling proposals", "claims",
		"*bindings.SettlementVaultRootSuperseded", "*bindings.SettlementVaultRootCancelled",
		"*bindings.SettlementVaultTimelockNotExpired", "*bindings.SettlementVaultTotalDecreased"} {
		require.Positive(t, counts[k], k)
	}
}
