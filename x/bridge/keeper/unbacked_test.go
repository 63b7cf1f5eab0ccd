package keeper_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"cosmossdk.io/math"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// alicePremint is the development genesis's unbacked uusdc of alice.
const alicePremint = 1_000_000_000_000

// newDevNetwork is newNetwork on a development genesis: accounts 0-3
// operate the four validators, account 4 (alice) holds alicePremint uusdc
// declared unbacked, account 5 (a renter) holds no uusdc. The minimum
// withdrawal is 1 so single units can be asked for.
func newDevNetwork(t testing.TB) *network {
	accs := apptesting.NewAccounts(6, sdk.NewCoins(sdk.NewInt64Coin("ugpu", 1_000_000_000_000)))
	accs[4].Coins = accs[4].Coins.Add(sdk.NewInt64Coin("uusdc", alicePremint))
	a := apptesting.NewApp(t)
	gen := apptesting.GenesisWithValidators(t, a, accs, 1, 1, 1, 1)
	cdc := a.AppCodec()

	var bg types.GenesisState
	cdc.MustUnmarshalJSON(gen[types.ModuleName], &bg)
	bg.Params.EvmChainId, bg.Params.VaultAddress = 1337, vault.Hex()
	require.Equal(t, int64(alicePremint), bg.Totals.Unbacked.Int64())
	bg.Params.MinWithdrawal = math.OneInt()
	gen[types.ModuleName] = cdc.MustMarshalJSON(&bg)

	apptesting.InitChain(t, a, gen)
	apptesting.NextBlock(t, a)
	n := &network{t: t, app: a, accs: accs}
	for i := range 4 {
		k, err := crypto.HexToECDSA(fmt.Sprintf("%064x", 0xb1d6e000+i))
		require.NoError(t, err)
		n.evm = append(n.evm, k)
	}
	for i := range 4 {
		n.ok(n.tx(i, n.register(i)))
	}
	return n
}

// deposit credits a vault deposit of amount to acc's EVM twin: three of
// the four validators attest nonce.
func (n *network) deposit(nonce uint64, acc sdk.AccAddress, amount int64) {
	n.t.Helper()
	for i := range 3 {
		n.ok(n.tx(i, n.attest(i, nonce, common.BytesToAddress(acc), amount)))
	}
	require.Equal(n.t, nonce, n.status().Progress.LastCreditedNonce)
}

func withdrawMsg(from sdk.AccAddress, amount int64) *types.MsgWithdrawToEvm {
	return &types.MsgWithdrawToEvm{Sender: from.String(), EvmRecipient: common.BytesToAddress(from).Hex(),
		Amount: sdk.NewInt64Coin("uusdc", amount)}
}

// TestUnbackedCannotDrawOnDeposits is the attack on a single withdrawal
// cap: alice holds a pre-mint declared unbacked, a renter bridges 10 USDC
// in. Alice cannot withdraw a unit of the renter's deposit; the renter
// withdraws all of it, to the unit.
func TestUnbackedCannotDrawOnDeposits(t *testing.T) {
	n := newDevNetwork(t)
	alice, renter := n.accs[4].Address, n.accs[5].Address
	n.deposit(1, renter, 10_000_000)
	require.Equal(t, int64(10_000_000), n.balance(renter))

	n.refused(n.tx(4, withdrawMsg(alice, 23)), types.ErrUnbacked)
	require.Equal(t, int64(alicePremint), n.balance(alice))
	require.Equal(t, "0", n.status().Totals.Withdrawn.String())

	n.ok(n.tx(5, withdrawMsg(renter, 10_000_000)))
	require.Equal(t, int64(0), n.balance(renter))
	require.Equal(t, "10000000", n.status().Totals.Withdrawn.String())
	require.NoError(t, n.app.BridgeKeeper.CheckInvariants(n.ctx()))
}

// books is a chain whose test drives the bank and the bridge keeper
// directly in one uncommitted context: alice and bob hold pre-mints
// declared unbacked, r1..r3 hold nothing, and escrow is a pooled module
// account (x/auction's).
type books struct {
	t      *testing.T
	app    *app.App
	ctx    sdk.Context
	alice  sdk.AccAddress
	bob    sdk.AccAddress
	users  []sdk.AccAddress // alice, bob, r1, r2, r3
	escrow sdk.AccAddress
	nonce  uint64
}

func newBooks(t *testing.T, bobPremint int64) *books {
	accs := apptesting.NewAccounts(6, sdk.NewCoins(sdk.NewInt64Coin("ugpu", 1_000_000_000_000)))
	accs[1].Coins = accs[1].Coins.Add(sdk.NewInt64Coin("uusdc", alicePremint))
	accs[2].Coins = accs[2].Coins.Add(sdk.NewInt64Coin("uusdc", bobPremint))
	a := apptesting.Setup(t, accs)
	ctx := a.NewUncachedContext(false, cmtproto.Header{Height: a.LastBlockHeight() + 1, Time: apptesting.LastBlockTime(a)})
	p, err := a.BridgeKeeper.Params.Get(ctx)
	require.NoError(t, err)
	p.MinWithdrawal = math.OneInt()
	require.NoError(t, a.BridgeKeeper.Params.Set(ctx, p))
	b := &books{t: t, app: a, ctx: ctx, alice: accs[1].Address, bob: accs[2].Address,
		escrow: authtypes.NewModuleAddress(auctiontypes.EscrowAccount)}
	for _, acc := range accs[1:] {
		b.users = append(b.users, acc.Address)
	}
	return b
}

func (b *books) balance(addr sdk.AccAddress) int64 {
	return b.app.BankKeeper.GetBalance(b.ctx, addr, "uusdc").Amount.Int64()
}

func (b *books) mark(addr sdk.AccAddress) int64 {
	m, err := b.app.BridgeKeeper.UnbackedOf(b.ctx, addr)
	require.NoError(b.t, err)
	return m.Int64()
}

func (b *books) withdrawable(addr sdk.AccAddress) int64 {
	w, err := b.app.BridgeKeeper.Withdrawable(b.ctx, addr)
	require.NoError(b.t, err)
	return w.Int64()
}

func (b *books) deposit(to sdk.AccAddress, amount int64) {
	b.nonce++
	require.NoError(b.t, b.app.BridgeKeeper.CreditForTest(b.ctx, types.DepositClaim{
		Nonce: b.nonce, EvmSender: "0x1111111111111111111111111111111111111111", Recipient: to.String(),
		Amount: math.NewInt(amount), EvmBlockNumber: b.nonce, EvmTxHash: common.BigToHash(big.NewInt(int64(b.nonce))).Hex(),
	}))
}

// send moves amount of uusdc the way x/auction moves escrow: into and out
// of a module account with the module calls, between users with SendCoins.
func (b *books) send(from, to sdk.AccAddress, amount int64) {
	coins := sdk.NewCoins(sdk.NewInt64Coin("uusdc", amount))
	var err error
	switch {
	case to.Equals(b.escrow):
		err = b.app.BankKeeper.SendCoinsFromAccountToModule(b.ctx, from, auctiontypes.EscrowAccount, coins)
	case from.Equals(b.escrow):
		err = b.app.BankKeeper.SendCoinsFromModuleToAccount(b.ctx, auctiontypes.EscrowAccount, to, coins)
	default:
		err = b.app.BankKeeper.SendCoins(b.ctx, from, to, coins)
	}
	require.NoError(b.t, err)
}

func (b *books) withdraw(from sdk.AccAddress, amount int64) error {
	_, err := b.app.BridgeKeeper.Withdraw(b.ctx, from, common.BytesToAddress(from), sdk.NewInt64Coin("uusdc", amount))
	return err
}

func (b *books) totals() types.Totals {
	t, err := b.app.BridgeKeeper.Totals.Get(b.ctx)
	require.NoError(b.t, err)
	return t
}

// TestPooledAccountSpendsUnbackedFirst pins the rule in a pooled module
// account (the auction escrow holds every renter's deposit): its payments
// carry its unbacked coins first, whoever they are for. A renter refunded
// out of a pool that holds alice's unbacked coins receives them (the stated
// limit); alice refunded before anyone else gets her own back; in either
// order the withdrawable total is what was deposited.
func TestPooledAccountSpendsUnbackedFirst(t *testing.T) {
	for _, c := range []struct {
		name                    string
		aliceFirst              bool
		renterMark, aliceBacked int64
	}{
		{"alice refunded first: each gets its own back", true, 0, 0},
		{"renter refunded first: it carries alice's unbacked coins", false, 5_000_000, 5_000_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newBooks(t, 1)
			renter := b.users[2]
			b.deposit(renter, 10_000_000)
			b.send(b.alice, b.escrow, 5_000_000)
			b.send(renter, b.escrow, 10_000_000)
			require.Equal(t, int64(5_000_000), b.mark(b.escrow))
			require.Equal(t, int64(alicePremint-5_000_000), b.mark(b.alice))
			if c.aliceFirst {
				b.send(b.escrow, b.alice, 5_000_000)
				b.send(b.escrow, renter, 10_000_000)
			} else {
				b.send(b.escrow, renter, 10_000_000)
				b.send(b.escrow, b.alice, 5_000_000)
			}
			require.Zero(t, b.mark(b.escrow))
			require.Equal(t, c.renterMark, b.mark(renter))
			require.Equal(t, 10_000_000-c.renterMark, b.withdrawable(renter))
			require.Equal(t, alicePremint-c.aliceBacked, b.mark(b.alice))
			require.Equal(t, c.aliceBacked, b.withdrawable(b.alice))
			require.Equal(t, int64(10_000_000), b.withdrawable(renter)+b.withdrawable(b.alice))
			require.NoError(t, b.app.BridgeKeeper.CheckInvariants(b.ctx))
		})
	}
}

// TestBackingPerHolderProperty drives random deposits, transfers (direct,
// multi-send, and through the escrow module account) and withdrawals by
// holders of both kinds, against a model of the rule. After every step the
// invariants hold, every mark is the model's, a holder that only ever
// received bridged coins can withdraw its whole balance, a withdrawal is
// allowed exactly when it is at most balance − mark, withdrawals never pass
// deposits, and what all holders may withdraw is deposited − withdrawn. At
// the end everything bridged in and still held is withdrawn, to the unit.
func TestBackingPerHolderProperty(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			const bobPremint = 3_000_000
			b := newBooks(t, bobPremint)
			rng := rand.New(rand.NewPCG(seed, 0xb00c5))
			holders := append(append([]sdk.AccAddress{}, b.users...), b.escrow)
			marks := map[string]int64{b.alice.String(): alicePremint, b.bob.String(): bobPremint}
			tainted := map[string]bool{b.alice.String(): true, b.bob.String(): true}
			move := func(from, to sdk.AccAddress, amount int64) {
				moved := min(amount, marks[from.String()])
				marks[from.String()] -= moved
				marks[to.String()] += moved
				if moved > 0 {
					tainted[to.String()] = true
				}
			}
			// up to 20 USDC of a holder's balance
			amountOf := func(addr sdk.AccAddress) int64 { return 1 + rng.Int64N(min(b.balance(addr), 20_000_000)) }
			check := func(step int) {
				require.NoError(t, b.app.BridgeKeeper.CheckInvariants(b.ctx), "step %d", step)
				tot := b.totals()
				require.True(t, tot.Withdrawn.LTE(tot.Deposited), "step %d", step)
				sum := int64(0)
				for _, h := range holders {
					require.Equal(t, marks[h.String()], b.mark(h), "step %d: mark of %s", step, h)
					sum += b.balance(h) - b.mark(h)
					if !tainted[h.String()] && !h.Equals(b.escrow) {
						require.Equal(t, b.balance(h), b.withdrawable(h), "step %d: %s only received bridged coins", step, h)
					}
				}
				require.Equal(t, tot.Deposited.Sub(tot.Withdrawn).Int64(), sum, "step %d", step)
			}
			var allowed, refused int
			for step := range 400 {
				user := b.users[rng.IntN(len(b.users))]
				switch k := rng.IntN(10); {
				case k < 3:
					b.deposit(user, 1+rng.Int64N(5_000_000))
				case k < 7 && b.balance(user) > 0:
					to := holders[rng.IntN(len(holders))]
					if to.Equals(user) {
						break
					}
					amount := amountOf(user)
					b.send(user, to, amount)
					move(user, to, amount)
				case k < 8 && b.balance(b.escrow) > 0:
					amount := amountOf(b.escrow)
					b.send(b.escrow, user, amount)
					move(b.escrow, user, amount)
				case k < 9 && b.balance(user) > 1:
					// a multi-send to two others: each output moves marks in turn
					o1, o2 := b.users[rng.IntN(len(b.users))], b.users[rng.IntN(len(b.users))]
					if o1.Equals(user) || o2.Equals(user) {
						break
					}
					a1 := 1 + rng.Int64N(b.balance(user)/2)
					a2 := 1 + rng.Int64N(b.balance(user)-a1)
					require.NoError(t, b.app.BankKeeper.InputOutputCoins(b.ctx,
						banktypes.NewInput(user, sdk.NewCoins(sdk.NewInt64Coin("uusdc", a1+a2))),
						[]banktypes.Output{banktypes.NewOutput(o1, sdk.NewCoins(sdk.NewInt64Coin("uusdc", a1))),
							banktypes.NewOutput(o2, sdk.NewCoins(sdk.NewInt64Coin("uusdc", a2)))}))
					move(user, o1, a1)
					move(user, o2, a2)
				case k == 9 && b.balance(user) > 0:
					backed := b.balance(user) - marks[user.String()]
					amount := amountOf(user)
					if rng.IntN(2) == 0 && backed > 0 {
						amount = backed // everything it may
					}
					err := b.withdraw(user, amount)
					if amount <= backed {
						require.NoError(t, err, "step %d", step)
						allowed++
					} else {
						require.ErrorIs(t, err, types.ErrUnbacked, "step %d", step)
						refused++
					}
				}
				check(step)
			}
			require.Positive(t, allowed)
			require.Positive(t, refused)

			// The end: the pool pays out, and every holder withdraws all it may.
			if bal := b.balance(b.escrow); bal > 0 {
				b.send(b.escrow, b.users[2], bal)
				move(b.escrow, b.users[2], bal)
			}
			for _, u := range b.users {
				if w := b.withdrawable(u); w > 0 {
					require.NoError(t, b.withdraw(u, w))
				}
				require.Equal(t, marks[u.String()], b.balance(u), "only unbacked coins are left")
			}
			tot := b.totals()
			require.Equal(t, tot.Deposited.String(), tot.Withdrawn.String(), "every bridged coin went back out")
			require.Equal(t, tot.Unbacked.Int64(), int64(alicePremint+bobPremint))
			check(-1)
		})
	}
}

// TestUnbackedMarksSurviveExport: a MsgSend through the real tx path moves
// alice's unbacked coins to a renter; the whole app exports and imports
// with every mark, and what each holder may withdraw is unchanged.
func TestUnbackedMarksSurviveExport(t *testing.T) {
	n := newDevNetwork(t)
	alice, renter := n.accs[4].Address, n.accs[5].Address
	n.deposit(1, renter, 10_000_000)
	n.ok(n.tx(4, banktypes.NewMsgSend(alice, renter, sdk.NewCoins(sdk.NewInt64Coin("uusdc", 4_000_000)))))
	ctx := n.ctx()
	mark, err := n.app.BridgeKeeper.UnbackedOf(ctx, renter)
	require.NoError(t, err)
	require.Equal(t, int64(4_000_000), mark.Int64())
	w, err := n.app.BridgeKeeper.Withdrawable(ctx, renter)
	require.NoError(t, err)
	require.Equal(t, int64(10_000_000), w.Int64(), "receiving unbacked coins costs the renter nothing of its own")
	require.NoError(t, n.app.BridgeKeeper.CheckInvariants(ctx))

	exported, err := n.app.ExportAppStateAndValidators(false, nil, nil)
	require.NoError(t, err)
	var gen map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(exported.AppState, &gen))
	var bg types.GenesisState
	n.app.AppCodec().MustUnmarshalJSON(gen[types.ModuleName], &bg)
	require.ElementsMatch(t, []types.UnbackedHolder{
		{Address: alice.String(), Amount: math.NewInt(alicePremint - 4_000_000)},
		{Address: renter.String(), Amount: math.NewInt(4_000_000)},
	}, bg.UnbackedHolders)

	b := apptesting.NewApp(t)
	apptesting.InitChain(t, b, gen)
	apptesting.NextBlock(t, b)
	bctx := b.NewContext(true)
	for _, h := range bg.UnbackedHolders {
		addr := sdk.MustAccAddressFromBech32(h.Address)
		got, err := b.BridgeKeeper.UnbackedOf(bctx, addr)
		require.NoError(t, err)
		require.Equal(t, h.Amount, got)
	}
	w, err = b.BridgeKeeper.Withdrawable(bctx, renter)
	require.NoError(t, err)
	require.Equal(t, int64(10_000_000), w.Int64())
	require.NoError(t, b.BridgeKeeper.CheckInvariants(bctx))
	again, err := b.BridgeKeeper.ExportGenesis(bctx)
	require.NoError(t, err)
	require.ElementsMatch(t, bg.UnbackedHolders, again.UnbackedHolders)
}
