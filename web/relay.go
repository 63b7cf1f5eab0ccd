package web

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/gogoproto/proto"

	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/canon"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// maxBody bounds what the API reads from one request.
const maxBody = 64 << 10

// relayTimeout bounds one relayed tx: broadcast and inclusion.
const relayTimeout = 45 * time.Second

// apiError is a JSON error with its HTTP status.
type apiError struct {
	code int
	msg  string
}

func (e apiError) Error() string { return e.msg }

func apiErr(code int, format string, args ...any) error {
	return apiError{code: code, msg: fmt.Sprintf(format, args...)}
}

// apiFunc answers one API call with a JSON value.
type apiFunc func(r *http.Request) (any, error)

func (s *Server) api(f apiFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		out, err := f(r)
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			code := http.StatusBadGateway
			var ae apiError
			var bad errBadRequest
			var txe *chainclient.TxError
			switch {
			case errors.As(err, &ae):
				code = ae.code
			case errors.As(err, &bad) || status.Code(err) == codes.InvalidArgument:
				code = http.StatusBadRequest
			case status.Code(err) == codes.NotFound:
				code = http.StatusNotFound
			case errors.As(err, &txe):
				code = http.StatusUnprocessableEntity
			}
			if code >= 500 {
				s.cfg.Log.Error("api", "path", r.URL.Path, "err", err)
			}
			w.WriteHeader(code)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
			return
		}
		_ = json.NewEncoder(w).Encode(out)
	}
}

// prepared is what the page hands the wallet: the EIP-712 typed data to
// sign and the message it encodes, to send back with the signature.
type prepared struct {
	TypedData walletTypedData  `json:"typedData"`
	Signed    wallet.SignedJob `json:"signed"`
	Escrow    string           `json:"escrow,omitempty"`
	MaxFee    string           `json:"maxFee,omitempty"`
}

// walletTypedData is typed data as the page hands it to the wallet: every
// integer a decimal string (wallet.TypedDataJSON). A JSON number above 2^53
// (a 63-bit nonce, a uint256 amount) would be rounded by the browser's
// JSON.parse and the wallet would sign another message.
type walletTypedData apitypes.TypedData

// MarshalJSON implements json.Marshaler.
func (td walletTypedData) MarshalJSON() ([]byte, error) {
	return wallet.TypedDataJSON(apitypes.TypedData(td))
}

// walletParam is the signing wallet's 0x address from the form.
func walletParam(r *http.Request) (common.Address, string, error) {
	a := r.FormValue("wallet")
	if !common.IsHexAddress(a) {
		return common.Address{}, "", badRequest("wallet %q: connect a wallet (a 0x address)", a)
	}
	addr := common.HexToAddress(a)
	bech, err := parseAccount(addr.Hex())
	return addr, bech, err
}

// auctionParams are x/auction's params and the EIP-712 domain of signed
// messages (the vault's chain and address).
func (s *Server) auctionParams(ctx context.Context) (*auctiontypes.QueryParamsResponse, error) {
	return auctiontypes.NewQueryClient(s.conn).Params(ctx, &auctiontypes.QueryParamsRequest{})
}

// codecJSON is a message in the chain's JSON, as sign-job prints it.
func codecJSON(m proto.Message) (json.RawMessage, error) {
	enc, err := chainclient.Encoding()
	if err != nil {
		return nil, err
	}
	return enc.Codec.MarshalJSON(m)
}

// prepareJob: the form becomes a JobBid for the connected wallet, with a
// fresh nonce and a deadline bidValidFor ahead.
func (s *Server) prepareJob(r *http.Request) (any, error) {
	if err := r.ParseForm(); err != nil {
		return nil, badRequest("%v", err)
	}
	addr, renter, err := walletParam(r)
	if err != nil {
		return nil, err
	}
	params, err := s.auctionParams(r.Context())
	if err != nil {
		return nil, err
	}
	p, err := s.parse(readJobForm(r.PostForm), params.Params)
	if err != nil {
		return nil, err
	}
	bid := auctiontypes.JobBid{
		Renter: renter, Spec: p.Spec, CosmosChainId: s.cfg.ChainID, Nonce: newNonce(),
		Deadline: uint64(time.Now().Add(bidValidFor).Unix()), MaxRelayerFee: p.MaxFee.Amount,
		EvmChainId: params.EvmChainId, VerifyingContract: params.VerifyingContract,
	}
	bz, err := codecJSON(&bid)
	if err != nil {
		return nil, err
	}
	return prepared{
		TypedData: walletTypedData(wallet.JobBidTypedData(bid, addr)), Signed: wallet.SignedJob{Bid: bz},
		Escrow: s.units.Coin(p.Escrow), MaxFee: s.units.Coin(p.MaxFee),
	}, nil
}

// actionFee is the relayer fee a cancel or close offers: the app's own fee
// in the chain's payment denom.
func (s *Server) actionFee(denom string) sdk.Coin { return sdk.NewCoin(denom, s.cfg.RelayerFee) }

// signerFeeCap is the relayer fee a cancel or close is signed with: the
// signer's own cap (max_relayer_fee) when given, else what this relayer
// asks. The relayer takes the smaller of its fee and the cap.
func (s *Server) signerFeeCap(r *http.Request, denom string) (sdk.Coin, error) {
	if strings.TrimSpace(r.FormValue("max_relayer_fee")) == "" {
		return s.actionFee(denom), nil
	}
	amt, err := s.feeCap(r.FormValue("max_relayer_fee"), denom)
	if err != nil {
		return sdk.Coin{}, err
	}
	return sdk.NewCoin(denom, amt), nil
}

// prepareCancel: a CancelJobAuth for the job's renter.
func (s *Server) prepareCancel(r *http.Request) (any, error) {
	ctx := r.Context()
	addr, renter, err := walletParam(r)
	if err != nil {
		return nil, err
	}
	id, err := canon.ParseUint64("job_id", r.FormValue("job_id"))
	if err != nil {
		return nil, badRequest("%v", err)
	}
	job, err := auctiontypes.NewQueryClient(s.conn).Job(ctx, &auctiontypes.QueryJobRequest{Id: id})
	if err != nil {
		return nil, err
	}
	if job.Job.Renter != renter {
		return nil, apiErr(http.StatusForbidden, "job %d is %s's; the connected wallet is %s", id, job.Job.Renter, addr.Hex())
	}
	params, err := s.auctionParams(ctx)
	if err != nil {
		return nil, err
	}
	maxFee, err := s.signerFeeCap(r, job.Job.Spec.MaxPrice.Denom)
	if err != nil {
		return nil, err
	}
	a := auctiontypes.CancelJobAuth{
		Renter: renter, JobId: id, CosmosChainId: s.cfg.ChainID, Nonce: newNonce(),
		Deadline: uint64(time.Now().Add(bidValidFor).Unix()), MaxRelayerFee: maxFee,
		EvmChainId: params.EvmChainId, VerifyingContract: params.VerifyingContract,
	}
	bz, err := codecJSON(&a)
	if err != nil {
		return nil, err
	}
	return prepared{TypedData: walletTypedData(wallet.CancelJobTypedData(a, addr)), Signed: wallet.SignedJob{Cancel: bz}, MaxFee: s.units.Coin(a.MaxRelayerFee)}, nil
}

// prepareClose: a CloseLeaseAuth for the lease's renter.
func (s *Server) prepareClose(r *http.Request) (any, error) {
	ctx := r.Context()
	addr, renter, err := walletParam(r)
	if err != nil {
		return nil, err
	}
	id, err := canon.ParseUint64("lease_id", r.FormValue("lease_id"))
	if err != nil {
		return nil, badRequest("%v", err)
	}
	l, err := auctiontypes.NewQueryClient(s.conn).Lease(ctx, &auctiontypes.QueryLeaseRequest{Id: id})
	if err != nil {
		return nil, err
	}
	if l.Lease.Renter != renter {
		return nil, apiErr(http.StatusForbidden, "lease %d is %s's; the connected wallet is %s", id, l.Lease.Renter, addr.Hex())
	}
	maxFee, err := s.signerFeeCap(r, l.Lease.Price.Denom)
	if err != nil {
		return nil, err
	}
	params, err := s.auctionParams(ctx)
	if err != nil {
		return nil, err
	}
	reason := strings.TrimSpace(r.FormValue("reason"))
	if len(reason) > 140 {
		return nil, badRequest("reason: at most 140 characters")
	}
	a := auctiontypes.CloseLeaseAuth{
		Renter: renter, LeaseId: id, Reason: reason, CosmosChainId: s.cfg.ChainID, Nonce: newNonce(),
		Deadline: uint64(time.Now().Add(bidValidFor).Unix()), MaxRelayerFee: maxFee,
		EvmChainId: params.EvmChainId, VerifyingContract: params.VerifyingContract,
	}
	bz, err := codecJSON(&a)
	if err != nil {
		return nil, err
	}
	return prepared{TypedData: walletTypedData(wallet.CloseLeaseTypedData(a, addr)), Signed: wallet.SignedJob{Close: bz}, MaxFee: s.units.Coin(a.MaxRelayerFee)}, nil
}

// relayed is what the relay endpoints answer.
type relayed struct {
	TxHash     string `json:"txhash"`
	Height     int64  `json:"height"`
	JobID      uint64 `json:"jobId,omitempty"`
	LeaseID    uint64 `json:"leaseId,omitempty"`
	RelayerFee string `json:"relayerFee"`
	// EvmRecipient and Cumulative are a withdrawal's: the signer's EVM
	// address and everything withdrawn to it so far (base units).
	EvmRecipient string `json:"evmRecipient,omitempty"`
	Cumulative   string `json:"cumulative,omitempty"`
}

// readSigned decodes a signed message as sign-job prints it.
func readSigned(r *http.Request) (wallet.SignedJob, []byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return wallet.SignedJob{}, nil, badRequest("%v", err)
	}
	var sj wallet.SignedJob
	if err := json.Unmarshal(body, &sj); err != nil {
		return sj, nil, badRequest("not a signed message: %v", err)
	}
	sig, err := hex.DecodeString(strings.TrimPrefix(sj.Signature, "0x"))
	if err != nil || len(sig) != 65 {
		return sj, nil, badRequest("signature: want 65 bytes in hex")
	}
	return sj, sig, nil
}

// checkSigner recovers the signer off chain before the relayer pays gas:
// a signature that is not the renter's is refused here, not on chain.
func checkSigner(renter string, contract string, evmChainID uint64, structHash func([]byte) ([]byte, error), sig []byte) error {
	bz, err := sdk.GetFromBech32(renter, chaincfg.Bech32Prefix)
	if err != nil || len(bz) != common.AddressLength {
		return badRequest("renter %q is not a wallet account", renter)
	}
	h, err := structHash(bz)
	if err != nil {
		return badRequest("%v", err)
	}
	c, err := auctiontypes.ParseEVMAddress(contract)
	if err != nil {
		return badRequest("%v", err)
	}
	got, err := auctiontypes.RecoverWalletSigner(auctiontypes.TypedDataDigest(auctiontypes.EIP712Domain{ChainID: evmChainID, VerifyingContract: c}, h), sig)
	if err != nil {
		return badRequest("%v", err)
	}
	if got != common.BytesToAddress(bz) {
		return apiErr(http.StatusForbidden, "signed by %s, not by the renter %s", got.Hex(), common.BytesToAddress(bz).Hex())
	}
	return nil
}

// fee is what the relayer asks: its configured fee, at most what the
// signer allowed.
func (s *Server) fee(max sdkmath.Int) sdkmath.Int {
	if max.IsNil() || s.cfg.RelayerFee.GT(max) {
		if max.IsNil() {
			return sdkmath.ZeroInt()
		}
		return max
	}
	return s.cfg.RelayerFee
}

func (s *Server) relayJob(r *http.Request) (any, error)      { return s.relay(r, "bid") }
func (s *Server) relayCancel(r *http.Request) (any, error)   { return s.relay(r, "cancel") }
func (s *Server) relayClose(r *http.Request) (any, error)    { return s.relay(r, "close") }
func (s *Server) relayWithdraw(r *http.Request) (any, error) { return s.relay(r, "withdraw") }

// signedMsg is the message that relays sj's bid, cancel, close or withdraw (want) for
// submitter, at the relayer's fee. The signed message is read with
// wallet.UnmarshalSignedJSON, so a number not in plain decimal is refused
// (a 400 carrying auctiontypes.ErrInvalidSignedMsg, naming the field), and
// its signature is checked off chain.
func (s *Server) signedMsg(sj wallet.SignedJob, sig []byte, want, submitter string) (sdk.Msg, sdkmath.Int, error) {
	enc, err := chainclient.Encoding()
	if err != nil {
		return nil, sdkmath.Int{}, err
	}
	read := func(bz json.RawMessage, msg proto.Message) error {
		if len(bz) == 0 {
			return badRequest("want a signed %s", want)
		}
		if err := wallet.UnmarshalSignedJSON(enc.Codec, want, bz, msg); err != nil {
			return errBadRequest{msg: err.Error(), cause: err}
		}
		return nil
	}
	switch want {
	case "bid":
		var bid auctiontypes.JobBid
		if err := read(sj.Bid, &bid); err != nil {
			return nil, sdkmath.Int{}, err
		}
		if bid.CosmosChainId != s.cfg.ChainID {
			return nil, sdkmath.Int{}, badRequest("bid signed for chain %q, this is %q", bid.CosmosChainId, s.cfg.ChainID)
		}
		if err := checkSigner(bid.Renter, bid.VerifyingContract, bid.EvmChainId, func(rn []byte) ([]byte, error) { return auctiontypes.JobBidHash(bid, rn) }, sig); err != nil {
			return nil, sdkmath.Int{}, err
		}
		fee := s.fee(bid.MaxRelayerFee)
		return &auctiontypes.MsgSubmitSignedJob{Submitter: submitter, Bid: bid, Signature: sig, RelayerFee: fee}, fee, nil
	case "cancel":
		var a auctiontypes.CancelJobAuth
		if err := read(sj.Cancel, &a); err != nil {
			return nil, sdkmath.Int{}, err
		}
		if err := checkSigner(a.Renter, a.VerifyingContract, a.EvmChainId, func(rn []byte) ([]byte, error) { return auctiontypes.CancelJobHash(a, rn) }, sig); err != nil {
			return nil, sdkmath.Int{}, err
		}
		fee := s.fee(a.MaxRelayerFee.Amount)
		return &auctiontypes.MsgSubmitSignedCancel{Submitter: submitter, Auth: a, Signature: sig, RelayerFee: fee}, fee, nil
	case "withdraw":
		var a auctiontypes.WithdrawAuth
		if err := read(sj.Withdraw, &a); err != nil {
			return nil, sdkmath.Int{}, err
		}
		if err := checkSigner(a.Renter, a.VerifyingContract, a.EvmChainId, func(rn []byte) ([]byte, error) { return auctiontypes.WithdrawHash(a, rn) }, sig); err != nil {
			return nil, sdkmath.Int{}, err
		}
		fee := s.fee(a.MaxRelayerFee.Amount)
		return &auctiontypes.MsgSubmitSignedWithdraw{Submitter: submitter, Auth: a, Signature: sig, RelayerFee: fee}, fee, nil
	default: // "close"
		var a auctiontypes.CloseLeaseAuth
		if err := read(sj.Close, &a); err != nil {
			return nil, sdkmath.Int{}, err
		}
		if err := checkSigner(a.Renter, a.VerifyingContract, a.EvmChainId, func(rn []byte) ([]byte, error) { return auctiontypes.CloseLeaseHash(a, rn) }, sig); err != nil {
			return nil, sdkmath.Int{}, err
		}
		fee := s.fee(a.MaxRelayerFee.Amount)
		return &auctiontypes.MsgSubmitSignedClose{Submitter: submitter, Auth: a, Signature: sig, RelayerFee: fee}, fee, nil
	}
}

// relay submits a wallet-signed bid, cancel, close or withdrawal with the app's key
// and answers once it is in a block.
func (s *Server) relay(r *http.Request, want string) (any, error) {
	if s.relayer == nil {
		return nil, apiErr(http.StatusServiceUnavailable, "this app has no relayer key: submit the signed message with `idlegpud tx auction submit-signed-job`")
	}
	sj, sig, err := readSigned(r)
	if err != nil {
		return nil, err
	}
	msg, fee, err := s.signedMsg(sj, sig, want, s.relayer.Address().String())
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), relayTimeout)
	defer cancel()
	res, err := s.relayer.Submit(ctx, msg)
	if err != nil {
		return nil, err
	}
	out := relayed{TxHash: res.TxHash, Height: res.Height, RelayerFee: fee.String()}
	for _, e := range res.Events {
		ev, err := sdk.ParseTypedEvent(abci.Event(e))
		if err != nil {
			continue
		}
		switch ev := ev.(type) {
		case *auctiontypes.EventSignedJobRelayed:
			out.JobID = ev.JobId
		case *auctiontypes.EventSignedActionRelayed:
			switch ev.Action {
			case "close-lease":
				out.LeaseID = ev.Id
			case "cancel-job":
				out.JobID = ev.Id
			}
		case *bridgetypes.EventWithdrawal:
			out.EvmRecipient, out.Cumulative = ev.EvmRecipient, ev.Cumulative.String()
		}
	}
	s.cfg.Log.Info("relayed", "kind", want, "tx", res.TxHash, "job", out.JobID, "lease", out.LeaseID, "fee", fee.String())
	return out, nil
}
