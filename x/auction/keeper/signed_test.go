package keeper_test

import (
	"crypto/ecdsa"
	"math/big"
	"time"

	sdkmath "cosmossdk.io/math"

	"cosmossdk.io/collections"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// walletRenter is an Ethereum key whose account (the same 20 bytes) holds
// funds on chain but has no Cosmos key.
func (s *KeeperTestSuite) walletRenter(usdcFunds int64) (*ecdsa.PrivateKey, sdk.AccAddress) {
	key, err := crypto.GenerateKey()
	s.Require().NoError(err)
	addr := sdk.AccAddress(crypto.PubkeyToAddress(key.PublicKey).Bytes())
	s.Require().NoError(s.app.BankKeeper.SendCoins(s.ctx, s.accs[5].Address, addr, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.USDCDenom, usdcFunds))))
	return key, addr
}

func (s *KeeperTestSuite) signedBid(renter sdk.AccAddress, sp types.JobSpec, nonce uint64) types.JobBid {
	return types.JobBid{
		Renter: renter.String(), Spec: sp, CosmosChainId: apptesting.ChainID, Nonce: nonce,
		Deadline: uint64(s.ctx.BlockTime().Unix()) + 600, MaxRelayerFee: sdkmath.NewInt(50_000),
		EvmChainId: bridgetypes.DefaultEVMChainID, VerifyingContract: bridgetypes.DefaultVaultAddress,
	}
}

func (s *KeeperTestSuite) submitSigned(bid types.JobBid, sig []byte, fee int64) (*types.MsgSubmitSignedJobResponse, error) {
	return s.msgServer.SubmitSignedJob(s.ctx, &types.MsgSubmitSignedJob{
		Submitter: s.operator(4), Bid: bid, Signature: sig, RelayerFee: sdkmath.NewInt(fee),
	})
}

// TestSignedJobPostsForTheWallet: a job signed in a wallet and relayed by
// another account is the renter's job; the renter pays the deposit and the
// relayer fee, the relayer receives exactly the fee, and the same signed
// bid relayed again is refused.
func (s *KeeperTestSuite) TestSignedJobPostsForTheWallet() {
	key, renter := s.walletRenter(20_000_000)
	sp := spec(1, 1_000_000, 5) // deposit ceil(1 USDC × 2 h) = 2,000,000
	bid := s.signedBid(renter, sp, 42)
	sig, err := wallet.SignJobBid(bid, key)
	s.Require().NoError(err)
	relayerBefore := s.usdcOf(s.accs[4].Address)

	res, err := s.submitSigned(bid, sig, 30_000)
	s.Require().NoError(err)
	job := s.job(res.JobId)
	s.Require().Equal(renter.String(), job.Renter)
	s.Require().Equal(types.JOB_STATUS_OPEN, job.Status)
	s.Require().Equal("2000000uusdc", res.Deposit.String())
	s.Require().Equal(sdkmath.NewInt(20_000_000-2_000_000-30_000), s.usdcOf(renter))
	s.Require().Equal(relayerBefore.AddRaw(30_000), s.usdcOf(s.accs[4].Address))
	s.Require().Equal(sdkmath.NewInt(2_000_000), s.escrowUSDC())

	_, err = s.submitSigned(bid, sig, 0)
	s.Require().ErrorIs(err, types.ErrNonceUsed, "a replay")

	// The renter cancels with its wallet account like any renter's job:
	// the full deposit comes back.
	_, err = s.msgServer.CancelJob(s.ctx, &types.MsgCancelJob{Renter: renter.String(), JobId: res.JobId})
	s.Require().NoError(err)
	s.Require().Equal(sdkmath.NewInt(20_000_000-30_000), s.usdcOf(renter))
}

// TestSignedJobRejections: every way a signed bid can be wrong is refused
// with its own error, and nothing moves.
func (s *KeeperTestSuite) TestSignedJobRejections() {
	key, renter := s.walletRenter(20_000_000)
	other, _ := s.walletRenter(1)
	now := uint64(s.ctx.BlockTime().Unix())
	sp := spec(1, 1_000_000, 5)
	cases := []struct {
		name   string
		change func(*types.JobBid)
		signer *ecdsa.PrivateKey
		fee    int64
		mangle func([]byte) []byte
		// afterSign changes the bid after it was signed.
		afterSign func(*types.JobBid)
		want      error
	}{
		{name: "another Cosmos chain", change: func(b *types.JobBid) { b.CosmosChainId = "idlegpu-other" }, want: types.ErrWrongChainID},
		{name: "another EVM chain", change: func(b *types.JobBid) { b.EvmChainId = 1 }, want: types.ErrWrongDomain},
		{name: "another contract", change: func(b *types.JobBid) { b.VerifyingContract = "0x00000000000000000000000000000000000000a1" }, want: types.ErrWrongDomain},
		{name: "expired", change: func(b *types.JobBid) { b.Deadline = now - 1 }, want: types.ErrSignedMsgExpired},
		{name: "deadline too far", change: func(b *types.JobBid) { b.Deadline = now + types.DefaultMaxSignedDeadlineSeconds + 1 }, want: types.ErrDeadlineTooFar},
		{name: "signed by another key", signer: other, want: types.ErrSignerMismatch},
		{name: "truncated signature", mangle: func(sig []byte) []byte { return sig[:64] }, want: types.ErrBadSignature},
		{name: "bad v", mangle: func(sig []byte) []byte { sig[64] = 30; return sig }, want: types.ErrBadSignature},
		{name: "high s", mangle: highS, want: types.ErrBadSignature},
		{name: "fee above the maximum", fee: 50_001, want: types.ErrRelayerFeeTooHigh},
		// The deposit alone (10 USDC × 2 h) is exactly the balance; one more
		// unit of relayer fee is not there.
		{name: "deposit and fee above the balance", change: func(b *types.JobBid) { b.Spec.MaxPrice = sdk.NewInt64Coin(chaincfg.USDCDenom, 10_000_000) }, fee: 1, want: types.ErrInsufficientFunds},
		{name: "invalid spec", change: func(b *types.JobBid) { b.Spec.GpuCount = 0 }, want: types.ErrInvalidGPUCount},
		// Numbers no wallet can sign (refused by the encoder): typed, no panic.
		{name: "negative max relayer fee", afterSign: func(b *types.JobBid) { b.MaxRelayerFee = sdkmath.NewInt(-1) }, want: types.ErrInvalidSignedMsg},
		{name: "no max relayer fee", afterSign: func(b *types.JobBid) { b.MaxRelayerFee = sdkmath.Int{} }, want: types.ErrInvalidSignedMsg},
		{name: "negative relayer fee asked", fee: -1, want: types.ErrInvalidSignedMsg},
	}
	for _, tc := range cases {
		s.Run(tc.name, func() {
			bid := s.signedBid(renter, sp, 1)
			if tc.change != nil {
				tc.change(&bid)
			}
			signer := key
			if tc.signer != nil {
				signer = tc.signer
			}
			sig := signAs(s, bid, signer)
			if tc.mangle != nil {
				sig = tc.mangle(sig)
			}
			if tc.afterSign != nil {
				tc.afterSign(&bid)
			}
			renterBefore, escrowBefore := s.usdcOf(renter), s.escrowUSDC()
			_, err := s.submitSigned(bid, sig, tc.fee)
			s.Require().ErrorIs(err, tc.want)
			s.Require().Equal(renterBefore, s.usdcOf(renter), "nothing moved")
			s.Require().Equal(escrowBefore, s.escrowUSDC())
		})
	}
}

// TestSignedNoncesAreKeptUntilTheirDeadline: a used nonce is refused while
// its bid could still land, dropped by EndBlock once its deadline has
// passed, and then usable again (the old bid itself is expired by then).
func (s *KeeperTestSuite) TestSignedNoncesAreKeptUntilTheirDeadline() {
	key, renter := s.walletRenter(20_000_000)
	bid := s.signedBid(renter, spec(1, 1_000_000, 5), 9)
	bid.Deadline = uint64(s.ctx.BlockTime().Unix()) + 10
	_, err := s.submitSigned(bid, signAs(s, bid, key), 0)
	s.Require().NoError(err)

	s.endBlock(10 * time.Second) // now == deadline: still kept
	again := bid
	again.Deadline = uint64(s.ctx.BlockTime().Unix()) + 60
	_, err = s.submitSigned(again, signAs(s, again, key), 0)
	s.Require().ErrorIs(err, types.ErrNonceUsed)
	has, err := s.keeper.UsedNonces.Has(s.ctx, collections.Join(renter, uint64(9)))
	s.Require().NoError(err)
	s.Require().True(has)

	s.endBlock(time.Second) // the block after the deadline drops it
	s.endBlock(time.Second)
	has, err = s.keeper.UsedNonces.Has(s.ctx, collections.Join(renter, uint64(9)))
	s.Require().NoError(err)
	s.Require().False(has)
	again.Deadline = uint64(s.ctx.BlockTime().Unix()) + 60
	_, err = s.submitSigned(again, signAs(s, again, key), 0)
	s.Require().NoError(err)
	_, err = s.submitSigned(bid, signAs(s, bid, key), 0)
	s.Require().ErrorIs(err, types.ErrSignedMsgExpired, "the first bid cannot come back")
	s.Require().True(s.app.BankKeeper.GetBalance(s.ctx, authtypes.NewModuleAddress(types.EscrowAccount), chaincfg.USDCDenom).IsPositive())
}

func signAs(s *KeeperTestSuite, bid types.JobBid, key *ecdsa.PrivateKey) []byte {
	sig, err := wallet.SignJobBid(bid, key)
	s.Require().NoError(err)
	return sig
}

// highS turns a signature into its high-s twin (same key, same digest).
func highS(sig []byte) []byte {
	n := crypto.S256().Params().N
	s := new(big.Int).SetBytes(sig[32:64])
	out := append([]byte{}, sig...)
	copy(out[32:64], common.LeftPadBytes(new(big.Int).Sub(n, s).Bytes(), 32))
	out[64] = 27 + 28 - out[64] // the other parity: 27 ↔ 28
	return out
}

// TestSignedCancelAndClose: a wallet renter cancels an OPEN job and closes
// a running lease by signature; each relayer gets its fee, each signed
// action works once, and a signature by anyone else does nothing.
func (s *KeeperTestSuite) TestSignedCancelAndClose() {
	key, renter := s.walletRenter(20_000_000)
	stranger, _ := s.walletRenter(1)
	deadline := uint64(s.ctx.BlockTime().Unix()) + 600
	fee := sdk.NewInt64Coin(chaincfg.USDCDenom, 10_000)

	// An OPEN job (bids for 5 blocks), cancelled by signature: the full
	// deposit back, the relayer's fee paid.
	bid := s.signedBid(renter, spec(1, 1_000_000, 5), 1)
	res, err := s.submitSigned(bid, signAs(s, bid, key), 0)
	s.Require().NoError(err)
	cancel := types.CancelJobAuth{Renter: renter.String(), JobId: res.JobId, CosmosChainId: apptesting.ChainID, Nonce: 2,
		Deadline: deadline, MaxRelayerFee: fee, EvmChainId: bridgetypes.DefaultEVMChainID, VerifyingContract: bridgetypes.DefaultVaultAddress}
	submitCancel := func(k *ecdsa.PrivateKey) error {
		sig, err := wallet.SignCancelJob(cancel, k)
		s.Require().NoError(err)
		_, err = s.msgServer.SubmitSignedCancel(s.ctx, &types.MsgSubmitSignedCancel{
			Submitter: s.operator(4), Auth: cancel, Signature: sig, RelayerFee: sdkmath.NewInt(10_000),
		})
		return err
	}
	s.Require().ErrorIs(submitCancel(stranger), types.ErrSignerMismatch)
	s.Require().Equal(types.JOB_STATUS_OPEN, s.job(res.JobId).Status)
	relayerBefore := s.usdcOf(s.accs[4].Address)
	s.Require().NoError(submitCancel(key))
	s.Require().Equal(types.JOB_STATUS_CANCELLED, s.job(res.JobId).Status)
	s.Require().Equal(sdkmath.NewInt(20_000_000-10_000), s.usdcOf(renter), "deposit back, fee paid")
	s.Require().Equal(relayerBefore.AddRaw(10_000), s.usdcOf(s.accs[4].Address))
	s.Require().ErrorIs(submitCancel(key), types.ErrNonceUsed)

	// A lease, closed by signature after an hour: that hour paid, the rest back.
	s.provider(0, "eu-de", 1, 10000, 1_000_000)
	bid = s.signedBid(renter, spec(1, 1_000_000, 0), 3)
	res, err = s.submitSigned(bid, signAs(s, bid, key), 0)
	s.Require().NoError(err)
	s.endBlock(time.Second)
	lid := s.job(res.JobId).LeaseIds[0]
	_, err = s.msgServer.StartLease(s.ctx, &types.MsgStartLease{Signer: s.operator(0), LeaseId: lid})
	s.Require().NoError(err)
	s.ctx = s.ctx.WithBlockTime(s.ctx.BlockTime().Add(time.Hour))
	closeAuth := types.CloseLeaseAuth{Renter: renter.String(), LeaseId: lid, Reason: "done", CosmosChainId: apptesting.ChainID, Nonce: 4,
		Deadline: uint64(s.ctx.BlockTime().Unix()) + 600, MaxRelayerFee: fee, EvmChainId: bridgetypes.DefaultEVMChainID, VerifyingContract: bridgetypes.DefaultVaultAddress}
	sig, err := wallet.SignCloseLease(closeAuth, key)
	s.Require().NoError(err)
	_, err = s.msgServer.SubmitSignedClose(s.ctx, &types.MsgSubmitSignedClose{
		Submitter: s.operator(4), Auth: closeAuth, Signature: sig, RelayerFee: sdkmath.NewInt(10_001),
	})
	s.Require().ErrorIs(err, types.ErrRelayerFeeTooHigh)
	_, err = s.msgServer.SubmitSignedClose(s.ctx, &types.MsgSubmitSignedClose{
		Submitter: s.operator(4), Auth: closeAuth, Signature: sig, RelayerFee: sdkmath.NewInt(10_000),
	})
	s.Require().NoError(err)
	s.Require().Equal(types.LEASE_STATUS_CLOSING, s.lease(lid).Status, "closed by its renter: its ended epochs are still settled")
	s.Require().Equal(sdkmath.NewInt(20_000_000-10_000-2_000_000-10_000), s.usdcOf(renter), "the lease's escrow is held until it ends")
}
