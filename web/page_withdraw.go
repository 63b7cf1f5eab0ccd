package web

import (
	"context"
	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"net/http"
	"strings"
	"time"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

type withdrawData struct {
	Title    string
	Account  string
	EVM      string
	Denom    string
	Min      string
	Fee      string
	Relaying bool
	// Balance and Withdrawn are the account's spendable balance of the
	// bridged denom and everything ever withdrawn to its EVM address.
	Balance, Withdrawn string
	// Claim follows the withdrawals to the claim on the EVM chain.
	Claim *withdrawClaim
}

func (s *Server) bridgeParams(ctx context.Context) (bridgetypes.Params, error) {
	res, err := bridgetypes.NewQueryClient(s.conn).Params(ctx, &bridgetypes.QueryParamsRequest{})
	if err != nil {
		return bridgetypes.Params{}, err
	}
	return res.Params, nil
}

// withdrawPage: the form a wallet account withdraws its bridged coins
// with, to its own EVM address; with ?account it shows the balance and what
// was withdrawn to that address so far.
func (s *Server) withdrawPage(r *http.Request) (string, any, error) {
	ctx := r.Context()
	p, err := s.bridgeParams(ctx)
	if err != nil {
		return "", nil, err
	}
	d := withdrawData{
		Title: "Withdraw to your wallet", Denom: s.units.Symbol(p.Denom), Min: s.units.Amount(p.MinWithdrawal, p.Denom),
		Fee: s.units.Coin(s.actionFee(p.Denom)), Relaying: s.relayer != nil,
	}
	in := r.URL.Query().Get("account")
	if in == "" {
		return "withdraw", d, nil
	}
	if d.Account, err = parseAccount(in); err != nil {
		return "", nil, err
	}
	d.EVM = evmAddress(d.Account)
	bal, err := banktypes.NewQueryClient(s.conn).SpendableBalanceByDenom(ctx, &banktypes.QuerySpendableBalanceByDenomRequest{Address: d.Account, Denom: p.Denom})
	if err != nil {
		return "", nil, err
	}
	d.Balance = s.units.Coin(sdk.NewCoin(p.Denom, sdkmath.ZeroInt()))
	if bal.Balance != nil {
		d.Balance = s.units.Coin(*bal.Balance)
	}
	if d.EVM != "" {
		cum, err := bridgetypes.NewQueryClient(s.conn).Cumulative(ctx, &bridgetypes.QueryCumulativeRequest{EvmAddress: d.EVM})
		if err != nil {
			return "", nil, err
		}
		amt, ok := sdkmath.NewIntFromString(cum.Amount)
		if !ok {
			amt = sdkmath.ZeroInt()
		}
		d.Withdrawn = s.units.Amount(amt, p.Denom)
		if amt.IsPositive() {
			if d.Claim, err = s.claimFor(ctx, p, d.EVM, amt); err != nil {
				return "", nil, err
			}
		}
	}
	return "withdraw", d, nil
}

// prepareWithdraw: a WithdrawAuth of the form's amount (display units of
// the bridged denom, "2.5", or base units with the denom, "2500000uusdc")
// for the connected wallet's account, to its own address.
func (s *Server) prepareWithdraw(r *http.Request) (any, error) {
	ctx := r.Context()
	addr, account, err := walletParam(r)
	if err != nil {
		return nil, err
	}
	bp, err := s.bridgeParams(ctx)
	if err != nil {
		return nil, err
	}
	v := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(r.FormValue("amount")), " ", ""))
	if v != "" && strings.Trim(v, "0123456789.") == "" {
		v += s.units.Display(bp.Denom)
	}
	amount, err := units.ParsePrice(v, s.units.Metadata())
	if err != nil || amount.Denom != bp.Denom {
		return nil, badRequest("amount %q: an amount of %s, e.g. 2.5", r.FormValue("amount"), s.units.Symbol(bp.Denom))
	}
	if amount.Amount.LT(bp.MinWithdrawal) {
		return nil, badRequest("amount %s: at least %s", s.units.Coin(amount), s.units.Amount(bp.MinWithdrawal, bp.Denom))
	}
	params, err := s.auctionParams(ctx)
	if err != nil {
		return nil, err
	}
	a := auctiontypes.WithdrawAuth{
		Renter: account, Amount: amount, CosmosChainId: s.cfg.ChainID, Nonce: newNonce(),
		Deadline: uint64(time.Now().Add(bidValidFor).Unix()), MaxRelayerFee: s.actionFee(bp.Denom),
		EvmChainId: params.EvmChainId, VerifyingContract: params.VerifyingContract,
	}
	bz, err := codecJSON(&a)
	if err != nil {
		return nil, err
	}
	return prepared{TypedData: walletTypedData(wallet.WithdrawTypedData(a, addr)), Signed: wallet.SignedJob{Withdraw: bz}, MaxFee: s.units.Coin(a.MaxRelayerFee)}, nil
}
