package daemon

import (
	"context"
	"fmt"
	"slices"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// The offer controls below are shared by the daemon (health gating,
// shutdown, leave) and the pause | resume | drain | leave commands, which
// send them with the agent's key whether a daemon runs or not. Each takes
// the machine's GPUs (local): a provider with several machines pauses or
// leaves one machine at a time. A nil local means all the provider's GPUs.

// Submitter sends one transaction of msgs and waits for its block.
type Submitter interface {
	Submit(ctx context.Context, msgs ...sdk.Msg) (*sdk.TxResponse, error)
}

// onMachine reports whether any of uuids is local (all are when local is nil).
func onMachine(uuids []string, local map[string]bool) bool {
	if local == nil {
		return true
	}
	return slices.ContainsFunc(uuids, func(u string) bool { return local[u] })
}

// LocalGPUs is the set of a machine's GPU UUIDs.
func LocalGPUs(uuids []string) map[string]bool {
	m := make(map[string]bool, len(uuids))
	for _, u := range uuids {
		m[u] = true
	}
	return m
}

// StatusMsgs sets the machine's OPEN or PAUSED offers to status, each
// with its terms as they are (MsgUpdateOffer replaces them whole). Windows
// that ended are dropped, as the chain refuses them; an offer with none
// left matches no job anyway and is left alone.
func StatusMsgs(offers []offertypes.Offer, local map[string]bool, signer string, status offertypes.OfferStatus, now time.Time) []sdk.Msg {
	var msgs []sdk.Msg
	for _, o := range offers {
		if o.Status == offertypes.OFFER_STATUS_CLOSED || o.Status == status || !onMachine(o.GpuUuids, local) {
			continue
		}
		terms := o.Terms
		if len(terms.Windows) > 0 {
			terms.Windows = slices.DeleteFunc(slices.Clone(terms.Windows), func(w offertypes.Window) bool { return !w.End.After(now) })
			if len(terms.Windows) == 0 {
				continue
			}
		}
		msgs = append(msgs, &offertypes.MsgUpdateOffer{Signer: signer, OfferId: o.Id, Terms: terms, Status: status})
	}
	return msgs
}

// SetOffers sets the machine's offers to status in one transaction and
// says how many changed (0: none to change, no transaction).
func SetOffers(ctx context.Context, tx Submitter, q Queries, provider, signer string, local map[string]bool, status offertypes.OfferStatus, now time.Time) (int, error) {
	offers, err := q.ProviderOffers(ctx, provider)
	if err != nil {
		return 0, err
	}
	msgs := StatusMsgs(offers, local, signer, status, now)
	if len(msgs) == 0 {
		return 0, nil
	}
	if _, err := tx.Submit(ctx, msgs...); err != nil {
		return 0, fmt.Errorf("set %d offers %s: %w", len(msgs), status, err)
	}
	return len(msgs), nil
}

// LiveLeases are the provider's PENDING, ACTIVE and CLOSING leases on the
// machine's GPUs: what a drain waits for.
func LiveLeases(ctx context.Context, q Queries, provider string, local map[string]bool) ([]auctiontypes.Lease, error) {
	var out []auctiontypes.Lease
	for _, st := range []auctiontypes.LeaseStatus{auctiontypes.LEASE_STATUS_PENDING, auctiontypes.LEASE_STATUS_ACTIVE, auctiontypes.LEASE_STATUS_CLOSING} {
		ls, err := q.ProviderLeases(ctx, provider, st)
		if err != nil {
			return nil, err
		}
		for _, l := range ls {
			if onMachine(l.GpuUuids, local) {
				out = append(out, l)
			}
		}
	}
	return out, nil
}

// LeaveMsgs close the machine's live offers and deregister its GPUs, in
// one transaction: closing an offer releases its free GPUs before the
// deregistrations that follow it. Only for a drained machine (a leased
// GPU cannot be deregistered).
func LeaveMsgs(offers []offertypes.Offer, gpus []providertypes.GPU, local map[string]bool, signer, provider string) []sdk.Msg {
	var msgs []sdk.Msg
	for _, o := range offers {
		if o.Status != offertypes.OFFER_STATUS_CLOSED && onMachine(o.GpuUuids, local) {
			msgs = append(msgs, &offertypes.MsgCloseOffer{Signer: signer, OfferId: o.Id})
		}
	}
	for _, g := range gpus {
		if local == nil || local[g.Uuid] {
			msgs = append(msgs, &providertypes.MsgDeregisterGPU{Signer: signer, Provider: provider, Uuid: g.Uuid})
		}
	}
	return msgs
}

// LeaveResult is what Leave did, and the unbond left to the operator.
type LeaveResult struct {
	ClosedOffers int `json:"closed_offers"`
	Deregistered int `json:"deregistered_gpus"`
	// OtherGPUs are the provider's GPUs on other machines: they keep the
	// stake bonded.
	OtherGPUs int `json:"other_gpus"`
	// Unbonding is the stake whose unbond this leave started.
	Unbonding string `json:"unbonding,omitempty"`
	// UnbondCommand is the operator's command to unbond, when the agent's
	// key is not the operator's (MsgUnbond takes the operator only) or the
	// chain refused the unbond (UnbondError says why).
	UnbondCommand string `json:"unbond_command,omitempty"`
	UnbondError   string `json:"unbond_error,omitempty"`
}

// Leave takes a drained machine off the market: its offers closed and its
// GPUs deregistered (operator or agent key), then, when the provider has
// no GPU left anywhere, the unbond of the whole stake, sent only when the
// signer is the operator; otherwise the command the operator runs. A
// refused unbond is reported, not retried: the operator decides.
func Leave(ctx context.Context, tx Submitter, q Queries, provider, signer string, local map[string]bool) (LeaveResult, error) {
	var res LeaveResult
	live, err := LiveLeases(ctx, q, provider, local)
	if err != nil {
		return res, err
	}
	if len(live) > 0 {
		return res, fmt.Errorf("%d leases still live on this machine (lease %d first): leave waits for them", len(live), live[0].Id)
	}
	offers, err := q.ProviderOffers(ctx, provider)
	if err != nil {
		return res, err
	}
	gpus, err := q.ProviderGPUs(ctx, provider)
	if err != nil {
		return res, err
	}
	msgs := LeaveMsgs(offers, gpus, local, signer, provider)
	for _, m := range msgs {
		switch m.(type) {
		case *offertypes.MsgCloseOffer:
			res.ClosedOffers++
		case *providertypes.MsgDeregisterGPU:
			res.Deregistered++
		}
	}
	res.OtherGPUs = len(gpus) - res.Deregistered
	if len(msgs) > 0 {
		if _, err := tx.Submit(ctx, msgs...); err != nil {
			return res, fmt.Errorf("close offers and deregister GPUs: %w", err)
		}
	}
	if res.OtherGPUs > 0 {
		return res, nil
	}
	prov, found, err := q.Provider(ctx, provider)
	if err != nil || !found || !prov.Stake.IsPositive() {
		return res, err
	}
	command := fmt.Sprintf("idlegpud tx provider unbond %s --from %s", prov.Stake, provider)
	if signer != provider {
		res.UnbondCommand = command
		return res, nil
	}
	if _, err := tx.Submit(ctx, &providertypes.MsgUnbond{Operator: provider, Amount: prov.Stake}); err != nil {
		res.UnbondCommand, res.UnbondError = command, err.Error()
		return res, nil
	}
	res.Unbonding = prov.Stake.String()
	return res, nil
}
