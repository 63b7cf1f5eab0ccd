package bindings_test

import (
	"fmt"
	"math/big"
	mrand "math/rand"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

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
					e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot())
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
