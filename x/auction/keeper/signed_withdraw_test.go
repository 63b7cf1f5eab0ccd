package keeper_test

import (
	"crypto/ecdsa"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
	"github.com/idlegpu/idlegpu/x/auction/keeper"
	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// bridgedWallet is an Ethereum key whose account holds usdc bridged in from
// the vault: minted by x/bridge and booked as deposited, as a credited
// deposit is (the test genesis's pre-minted usdc cannot leave the chain).
func (s *KeeperTestSuite) bridgedWallet(usdc int64) (*ecdsa.PrivateKey, sdk.AccAddress) {
	key, err := crypto.GenerateKey()
	s.Require().NoError(err)
	addr := sdk.AccAddress(crypto.PubkeyToAddress(key.PublicKey).Bytes())
	coins := sdk.NewCoins(sdk.NewInt64Coin(chaincfg.USDCDenom, usdc))
	s.Require().NoError(s.app.BankKeeper.MintCoins(s.ctx, bridgetypes.ModuleName, coins))
	s.Require().NoError(s.app.BankKeeper.SendCoinsFromModuleToAccount(s.ctx, bridgetypes.ModuleName, addr, coins))
	t, err := s.app.BridgeKeeper.Totals.Get(s.ctx)
	s.Require().NoError(err)
	t.Deposited = t.Deposited.AddRaw(usdc)
	s.Require().NoError(s.app.BridgeKeeper.Totals.Set(s.ctx, t))
	return key, addr
}

func (s *KeeperTestSuite) withdrawAuth(account sdk.AccAddress, amount int64, nonce uint64) types.WithdrawAuth {
	return types.WithdrawAuth{
		Renter: account.String(), Amount: sdk.NewInt64Coin(chaincfg.USDCDenom, amount), CosmosChainId: apptesting.ChainID,
		Nonce: nonce, Deadline: uint64(s.ctx.BlockTime().Unix()) + 600, MaxRelayerFee: sdk.NewInt64Coin(chaincfg.USDCDenom, 20_000),
		EvmChainId: bridgetypes.DefaultEVMChainID, VerifyingContract: bridgetypes.DefaultVaultAddress,
	}
}

// cumulativeOf is x/bridge's cumulative withdrawals to an EVM address (zero if none).
func (s *KeeperTestSuite) cumulativeOf(evm common.Address) sdkmath.Int {
	c, err := s.app.BridgeKeeper.Cumulative.Get(s.ctx, evm.Bytes())
	if err != nil {
		s.Require().ErrorIs(err, collections.ErrNotFound)
		return sdkmath.ZeroInt()
	}
	return c
}

func (s *KeeperTestSuite) submitWithdraw(ms types.MsgServer, a types.WithdrawAuth, sig []byte, fee int64) (*types.MsgSubmitSignedWithdrawResponse, error) {
	return ms.SubmitSignedWithdraw(s.ctx, &types.MsgSubmitSignedWithdraw{
		Submitter: s.operator(4), Auth: a, Signature: sig, RelayerFee: sdkmath.NewInt(fee),
	})
}

// TestSignedWithdrawPaysTheSignersEVMAddress: a wallet account's signed
// withdrawal, relayed by another account, burns exactly the amount, adds it
// to x/bridge's cumulative total of the signer's own EVM address, pays the
// relayer exactly its fee from the account, and works once.
func (s *KeeperTestSuite) TestSignedWithdrawPaysTheSignersEVMAddress() {
	key, acct := s.bridgedWallet(10_000_000)
	evm := common.BytesToAddress(acct)
	a := s.withdrawAuth(acct, 3_000_000, 7)
	sig, err := wallet.SignWithdraw(a, key)
	s.Require().NoError(err)
	relayerBefore := s.usdcOf(s.accs[4].Address)
	supplyBefore := s.app.BankKeeper.GetSupply(s.ctx, chaincfg.USDCDenom).Amount
	totalsBefore, err := s.app.BridgeKeeper.Totals.Get(s.ctx)
	s.Require().NoError(err)

	res, err := s.submitWithdraw(s.msgServer, a, sig, 15_000)
	s.Require().NoError(err)
	s.Require().Equal(evm.Hex(), res.EvmRecipient)
	s.Require().Equal(sdkmath.NewInt(3_000_000), res.Cumulative)
	s.Require().Equal(sdkmath.NewInt(10_000_000-3_000_000-15_000), s.usdcOf(acct))
	s.Require().Equal(relayerBefore.AddRaw(15_000), s.usdcOf(s.accs[4].Address))
	s.Require().Equal(sdkmath.NewInt(3_000_000), s.cumulativeOf(evm))
	s.Require().Equal(supplyBefore.SubRaw(3_000_000), s.app.BankKeeper.GetSupply(s.ctx, chaincfg.USDCDenom).Amount, "burned")
	totals, err := s.app.BridgeKeeper.Totals.Get(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(totalsBefore.Withdrawn.AddRaw(3_000_000), totals.Withdrawn)
	s.Require().NoError(s.app.BridgeKeeper.CheckInvariants(s.ctx))

	_, err = s.submitWithdraw(s.msgServer, a, sig, 0)
	s.Require().ErrorIs(err, types.ErrNonceUsed, "a replay")

	// A second withdrawal adds to the same address's cumulative total.
	b := s.withdrawAuth(acct, 1_000_000, 8)
	sig, err = wallet.SignWithdraw(b, key)
	s.Require().NoError(err)
	res, err = s.submitWithdraw(s.msgServer, b, sig, 0)
	s.Require().NoError(err)
	s.Require().Equal(sdkmath.NewInt(4_000_000), res.Cumulative)
	s.Require().Equal(sdkmath.NewInt(4_000_000), s.cumulativeOf(evm))
	s.Require().Equal(sdkmath.NewInt(10_000_000-3_000_000-15_000-1_000_000), s.usdcOf(acct))
}

// TestSignedWithdrawRejections: every way a signed withdrawal can be wrong
// is refused with its own error, and nothing moves: not the account's
// coins, not the relayer's, not the bridge's books, not the nonce (the
// bridge's own refusals come after relaySigned's checks and the nonce, and
// are undone with them).
func (s *KeeperTestSuite) TestSignedWithdrawRejections() {
	key, acct := s.bridgedWallet(5_000_000)
	other, _ := s.bridgedWallet(1_000_000)
	// Some of the bond denom too, so that withdrawing it passes the balance
	// check and is refused by x/bridge.
	s.Require().NoError(s.app.BankKeeper.SendCoins(s.ctx, s.accs[5].Address, acct, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 2_000_000))))
	evm := common.BytesToAddress(acct)
	now := uint64(s.ctx.BlockTime().Unix())
	cases := []struct {
		name   string
		change func(*types.WithdrawAuth)
		signer *ecdsa.PrivateKey
		fee    int64
		// afterSign changes the auth after it was signed (a relayer's edit).
		afterSign func(*types.WithdrawAuth)
		ms        types.MsgServer
		want      error
	}{
		{name: "another Cosmos chain", change: func(a *types.WithdrawAuth) { a.CosmosChainId = "idlegpu-other" }, want: types.ErrWrongChainID},
		{name: "another EVM chain", change: func(a *types.WithdrawAuth) { a.EvmChainId = 1 }, want: types.ErrWrongDomain},
		{name: "another contract", change: func(a *types.WithdrawAuth) { a.VerifyingContract = "0x00000000000000000000000000000000000000a1" }, want: types.ErrWrongDomain},
		{name: "past its deadline", change: func(a *types.WithdrawAuth) { a.Deadline = now - 1 }, want: types.ErrSignedMsgExpired},
		{name: "deadline too far", change: func(a *types.WithdrawAuth) { a.Deadline = now + types.DefaultMaxSignedDeadlineSeconds + 1 }, want: types.ErrDeadlineTooFar},
		{name: "signed by another key", signer: other, want: types.ErrSignerMismatch},
		{name: "fee above the maximum", fee: 20_001, want: types.ErrRelayerFeeTooHigh},
		{name: "relayer raises the amount", afterSign: func(a *types.WithdrawAuth) { a.Amount.Amount = a.Amount.Amount.AddRaw(1) }, want: types.ErrSignerMismatch},
		{name: "relayer lowers the amount", afterSign: func(a *types.WithdrawAuth) { a.Amount.Amount = a.Amount.Amount.SubRaw(1) }, want: types.ErrSignerMismatch},
		{name: "relayer raises the max fee", afterSign: func(a *types.WithdrawAuth) { a.MaxRelayerFee.Amount = sdkmath.NewInt(1_000_000) }, fee: 1_000_000, want: types.ErrSignerMismatch},
		{name: "relayer names another account", afterSign: func(a *types.WithdrawAuth) { a.Renter = s.operator(3) }, want: types.ErrSignerMismatch},
		// The balance covers the amount but not the amount and the fee.
		{name: "amount and fee above the balance", change: func(a *types.WithdrawAuth) { a.Amount.Amount = sdkmath.NewInt(4_990_001) }, fee: 10_000, want: types.ErrInsufficientFunds},
		{name: "amount above the balance", change: func(a *types.WithdrawAuth) { a.Amount.Amount = sdkmath.NewInt(5_000_001) }, want: types.ErrInsufficientFunds},
		// x/bridge's refusals, after the nonce was taken: undone whole.
		{name: "below min_withdrawal", change: func(a *types.WithdrawAuth) { a.Amount.Amount = sdkmath.NewInt(999_999) }, fee: 10_000, want: bridgetypes.ErrInvalidAmount},
		{name: "not the bridged denom", change: func(a *types.WithdrawAuth) { a.Amount = sdk.NewInt64Coin(chaincfg.BondDenom, 1_000_000) }, fee: 10_000, want: bridgetypes.ErrInvalidAmount},
		{name: "zero amount", change: func(a *types.WithdrawAuth) { a.Amount.Amount = sdkmath.ZeroInt() }, want: types.ErrInvalidSignedMsg},
		{name: "no withdrawer wired", ms: keeper.NewMsgServerImpl(s.keeper.WithoutEvmVault()), fee: 10_000, want: types.ErrNoWithdrawer},
	}
	for _, tc := range cases {
		s.Run(tc.name, func() {
			a := s.withdrawAuth(acct, 2_000_000, 1)
			if tc.change != nil {
				tc.change(&a)
			}
			signer := key
			if tc.signer != nil {
				signer = tc.signer
			}
			sig, err := wallet.SignWithdraw(a, signer)
			s.Require().NoError(err)
			if tc.afterSign != nil {
				tc.afterSign(&a)
			}
			ms := s.msgServer
			if tc.ms != nil {
				ms = tc.ms
			}
			acctBefore, relayerBefore := s.app.BankKeeper.GetAllBalances(s.ctx, acct), s.app.BankKeeper.GetAllBalances(s.ctx, s.accs[4].Address)
			totalsBefore, err := s.app.BridgeKeeper.Totals.Get(s.ctx)
			s.Require().NoError(err)

			_, err = s.submitWithdraw(ms, a, sig, tc.fee)
			s.Require().ErrorIs(err, tc.want)
			s.Require().Equal(acctBefore, s.app.BankKeeper.GetAllBalances(s.ctx, acct), "nothing moved")
			s.Require().Equal(relayerBefore, s.app.BankKeeper.GetAllBalances(s.ctx, s.accs[4].Address), "no fee paid")
			s.Require().True(s.cumulativeOf(evm).IsZero())
			totals, err := s.app.BridgeKeeper.Totals.Get(s.ctx)
			s.Require().NoError(err)
			s.Require().Equal(totalsBefore, totals)
			used, err := s.keeper.UsedNonces.Has(s.ctx, collections.Join(acct, uint64(1)))
			s.Require().NoError(err)
			s.Require().False(used, "the nonce is still the signer's")
		})
	}

	// After all that, the one correct message goes through with nonce 1.
	a := s.withdrawAuth(acct, 2_000_000, 1)
	sig, err := wallet.SignWithdraw(a, key)
	s.Require().NoError(err)
	_, err = s.submitWithdraw(s.msgServer, a, sig, 10_000)
	s.Require().NoError(err)
	s.Require().Equal(sdkmath.NewInt(2_000_000), s.cumulativeOf(evm))
	s.Require().Equal(sdkmath.NewInt(5_000_000-2_000_000-10_000), s.usdcOf(acct))
}

// TestSignedWithdrawOfUnbackedCoinsMovesNothing: coins with no vault
// deposit behind them (the test genesis's pre-mint, sent on to the wallet)
// pass x/auction's checks but not x/bridge's; the refusal comes after the
// nonce was taken and undoes everything: no fee, no burn, the nonce free.
func (s *KeeperTestSuite) TestSignedWithdrawOfUnbackedCoinsMovesNothing() {
	key, acct := s.walletRenter(5_000_000)
	a := s.withdrawAuth(acct, 2_000_000, 1)
	sig, err := wallet.SignWithdraw(a, key)
	s.Require().NoError(err)
	relayerBefore := s.usdcOf(s.accs[4].Address)

	_, err = s.submitWithdraw(s.msgServer, a, sig, 10_000)
	s.Require().ErrorIs(err, bridgetypes.ErrUnbacked)
	s.Require().Equal(sdkmath.NewInt(5_000_000), s.usdcOf(acct))
	s.Require().Equal(relayerBefore, s.usdcOf(s.accs[4].Address))
	s.Require().True(s.cumulativeOf(common.BytesToAddress(acct)).IsZero())
	used, err := s.keeper.UsedNonces.Has(s.ctx, collections.Join(acct, uint64(1)))
	s.Require().NoError(err)
	s.Require().False(used)
	s.Require().NoError(s.app.BridgeKeeper.CheckInvariants(s.ctx))
}
