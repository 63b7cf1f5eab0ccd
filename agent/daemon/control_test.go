package daemon

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/hostcheck"
	"github.com/idlegpu/idlegpu/agent/policy"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

const h100 = "NVIDIA H100 80GB HBM3"

var (
	healthy = []hostcheck.Result{{Part: hostcheck.PartRunner, Detail: "docker daemon answers"},
		{Part: hostcheck.PartGPU, Detail: "nvml: 2 GPUs read"}, {Part: hostcheck.PartDisk, Detail: "ok"}}
	dockerDown = []hostcheck.Result{
		{Part: hostcheck.PartRunner, Err: errorString("docker daemon not answering: Cannot connect to the Docker daemon")},
		{Part: hostcheck.PartGPU, Detail: "nvml: 2 GPUs read"}, {Part: hostcheck.PartDisk, Detail: "ok"}}
)

type errorString string

func (e errorString) Error() string { return string(e) }

// marketDaemon is a daemon on a fake market: this machine's GPU-a and
// GPU-b in OPEN offer 1 with the policy's terms, and, when otherMachine,
// the provider's GPU-z of another machine in OPEN offer 2.
func marketDaemon(t *testing.T, now time.Time, otherMachine bool) (*Daemon, *fakeMarket, *fakeAuction, *fakeHost) {
	t.Helper()
	d, auction := leaseDaemon(t, &fakeRunner{jobs: map[uint64]*fakeJob{}}, &fakeChain{})
	p := config.Default("").Policy
	var err error
	d.prices, err = policy.NewPrices(p)
	require.NoError(t, err)
	d.calendar, err = policy.NewCalendar(p.Availability)
	require.NoError(t, err)
	d.params.Offer = offertypes.DefaultParams()
	d.cfg.State.Dir = t.TempDir()
	d.devices = map[string]gpu.Info{"GPU-a": {UUID: "GPU-a", Model: h100}, "GPU-b": {UUID: "GPU-b", Model: h100}}
	terms, ok := d.terms(h100, now, 0)
	require.True(t, ok)
	m := &fakeMarket{
		offers: map[uint64]offertypes.Offer{1: {Id: 1, Provider: testProvider, GpuUuids: []string{"GPU-a", "GPU-b"},
			Status: offertypes.OFFER_STATUS_OPEN, Terms: terms}},
		gpus:  []providertypes.GPU{{Uuid: "GPU-a", Model: h100}, {Uuid: "GPU-b", Model: h100}},
		stake: sdk.NewInt64Coin("ugpu", 400_000_000),
	}
	if otherMachine {
		m.offers[2] = offertypes.Offer{Id: 2, Provider: testProvider, GpuUuids: []string{"GPU-z"}, Status: offertypes.OFFER_STATUS_OPEN, Terms: terms}
		m.gpus = append(m.gpus, providertypes.GPU{Uuid: "GPU-z", Model: h100})
	}
	d.chain, d.q.offer, d.q.provider = m, marketOffers{fakeMarket: m}, marketProviders{fakeMarket: m}
	host := &fakeHost{}
	host.set(healthy...)
	d.host, d.gate = host, newHostGate(time.Minute)
	return d, m, auction, host
}

func setStatus(d *Daemon, id uint64, st offertypes.OfferStatus, terms offertypes.OfferTerms) sdk.Msg {
	return &offertypes.MsgUpdateOffer{Signer: d.signer, OfferId: id, Terms: terms, Status: st}
}

// TestUnhealthyMachineWithdrawsOffersOnce: a runner that stops answering
// pauses the machine's offer in one transaction, however many rounds fail
// and publications follow; a lease's manifest is refused meanwhile. Only
// checks passing for a whole minute in a row restore the offer (a flap
// starts the minute again), in one transaction.
func TestUnhealthyMachineWithdrawsOffersOnce(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now()
	d, m, _, host := marketDaemon(t, t0, true)
	terms := m.offers[1].Terms

	d.checkHost(ctx, t0)
	d.keepOffers(ctx, t0)
	require.Empty(t, m.sent(), "healthy: the open offer is as wanted")

	host.set(dockerDown...)
	d.checkHost(ctx, t0.Add(15*time.Second))
	d.keepOffers(ctx, t0.Add(15*time.Second))
	require.Equal(t, [][]sdk.Msg{{setStatus(d, 1, offertypes.OFFER_STATUS_PAUSED, terms)}}, m.sent())
	for i := 2; i < 10; i++ {
		at := t0.Add(time.Duration(i) * 15 * time.Second)
		d.checkHost(ctx, at)
		d.keepOffers(ctx, at.Add(offerEvery))
	}
	require.Empty(t, m.sent(), "paused once: no transaction per round")
	require.Equal(t, offertypes.OFFER_STATUS_OPEN, m.status(2), "another machine's offer is not this agent's to pause")

	err := d.acceptable(pendingLease(1), auctiontypes.Job{})
	require.EqualError(t, err, "this machine cannot run jobs now: runner: docker daemon not answering: Cannot connect to the Docker daemon")
	r := d.health.report(time.Now(), time.Hour)
	require.True(t, r.HostUnhealthy)
	require.True(t, r.OffersPaused)
	require.Equal(t, "unhealthy", r.OffersPausedBy)
	require.Contains(t, r.Issues, "cannot run jobs (offers withdrawn): runner: docker daemon not answering: Cannot connect to the Docker daemon")

	// Recovery: healthy for 50 s, a failed round, then healthy again.
	t1 := t0.Add(10 * time.Minute)
	host.set(healthy...)
	d.checkHost(ctx, t1)
	d.checkHost(ctx, t1.Add(50*time.Second))
	host.set(dockerDown...)
	d.checkHost(ctx, t1.Add(55*time.Second))
	host.set(healthy...)
	d.checkHost(ctx, t1.Add(70*time.Second))
	d.checkHost(ctx, t1.Add(129*time.Second))
	d.keepOffers(ctx, t1.Add(129*time.Second))
	require.Empty(t, m.sent(), "not yet a minute healthy since the flap")
	require.Error(t, d.gate.refusal())

	d.checkHost(ctx, t1.Add(130*time.Second))
	d.keepOffers(ctx, t1.Add(130*time.Second))
	require.Equal(t, [][]sdk.Msg{{setStatus(d, 1, offertypes.OFFER_STATUS_OPEN, terms)}}, m.sent())
	require.NoError(t, d.gate.refusal())
	r = d.health.report(time.Now(), time.Hour)
	require.False(t, r.HostUnhealthy)
	require.False(t, r.OffersPaused)
}

// TestOperatorPauseSurvivesRecovery: offers the operator paused stay
// paused through an unhealthy spell and its recovery; resume reopens them.
func TestOperatorPauseSurvivesRecovery(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now()
	d, m, _, host := marketDaemon(t, t0, false)
	terms := m.offers[1].Terms

	require.NoError(t, SaveMode(d.cfg.State.Dir, ModeState{Mode: ModePaused, Since: t0}))
	d.refreshMode()
	d.keepOffers(ctx, t0)
	require.Equal(t, [][]sdk.Msg{{setStatus(d, 1, offertypes.OFFER_STATUS_PAUSED, terms)}}, m.sent())

	host.set(dockerDown...)
	d.checkHost(ctx, t0)
	d.keepOffers(ctx, t0)
	host.set(healthy...)
	d.checkHost(ctx, t0.Add(time.Second))
	d.checkHost(ctx, t0.Add(2*time.Minute))
	d.keepOffers(ctx, t0.Add(2*time.Minute))
	d.refreshMode()
	d.keepOffers(ctx, t0.Add(3*time.Minute))
	require.Empty(t, m.sent(), "healthy again, but the operator paused them")
	require.Equal(t, offertypes.OFFER_STATUS_PAUSED, m.status(1))
	r := d.health.report(time.Now(), time.Hour)
	require.Equal(t, ModePaused, r.Mode)
	require.Equal(t, "operator: paused", r.OffersPausedBy)

	require.NoError(t, SaveMode(d.cfg.State.Dir, ModeState{Mode: ModeRunning, Since: t0}))
	d.refreshMode()
	d.keepOffers(ctx, t0.Add(4*time.Minute))
	require.Equal(t, [][]sdk.Msg{{setStatus(d, 1, offertypes.OFFER_STATUS_OPEN, terms)}}, m.sent())
}

// TestDrainReportsDrainedWhenLeasesEnd: draining pauses the offers and
// counts the live leases on this machine's GPUs (another machine's are
// not waited for) until none is left.
func TestDrainReportsDrainedWhenLeasesEnd(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now()
	d, m, auction, _ := marketDaemon(t, t0, true)
	l := pendingLease(7)
	l.Status = auctiontypes.LEASE_STATUS_ACTIVE
	auction.set(l)
	elsewhere := pendingLease(8)
	elsewhere.GpuUuids = []string{"GPU-z"}
	auction.set(elsewhere)

	require.NoError(t, SaveMode(d.cfg.State.Dir, ModeState{Mode: ModeDraining, Since: t0}))
	d.refreshMode()
	d.keepOffers(ctx, t0)
	require.NoError(t, d.drain(ctx))
	require.Len(t, m.sent(), 1, "the pause")
	r := d.health.report(time.Now(), time.Hour)
	require.Equal(t, ModeDraining, r.Mode)
	require.Equal(t, 1, r.LiveLeases)
	require.False(t, r.Drained)

	l.Status = auctiontypes.LEASE_STATUS_CLOSING
	auction.set(l)
	require.NoError(t, d.drain(ctx))
	require.False(t, d.health.report(time.Now(), time.Hour).Drained, "a CLOSING lease is still proven")

	l.Status = auctiontypes.LEASE_STATUS_COMPLETED
	auction.set(l)
	require.NoError(t, d.drain(ctx))
	r = d.health.report(time.Now(), time.Hour)
	require.True(t, r.Drained)
	require.Zero(t, r.LiveLeases)
	b, err := json.Marshal(r)
	require.NoError(t, err)
	require.Contains(t, string(b), `"mode":"draining"`)
	require.Contains(t, string(b), `"drained":true`)
	require.Empty(t, m.sent(), "draining sends nothing more")
}

// TestLeaveOnceDrained: a leaving agent waits for its lease, then closes
// its offer and deregisters its GPUs in one transaction and, the agent key
// being the operator's, unbonds the whole stake; once.
func TestLeaveOnceDrained(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now()
	d, m, auction, _ := marketDaemon(t, t0, false)
	l := pendingLease(7)
	l.Status = auctiontypes.LEASE_STATUS_ACTIVE
	auction.set(l)
	require.NoError(t, SaveMode(d.cfg.State.Dir, ModeState{Mode: ModeLeft, Since: t0}))
	d.refreshMode()
	d.keepOffers(ctx, t0)
	require.NoError(t, d.drain(ctx))
	require.Len(t, m.sent(), 1, "paused, and waiting for lease 7")

	l.Status = auctiontypes.LEASE_STATUS_COMPLETED
	auction.set(l)
	require.NoError(t, d.drain(ctx))
	require.Equal(t, [][]sdk.Msg{
		{&offertypes.MsgCloseOffer{Signer: testProvider, OfferId: 1},
			&providertypes.MsgDeregisterGPU{Signer: testProvider, Provider: testProvider, Uuid: "GPU-a"},
			&providertypes.MsgDeregisterGPU{Signer: testProvider, Provider: testProvider, Uuid: "GPU-b"}},
		{&providertypes.MsgUnbond{Operator: testProvider, Amount: sdk.NewInt64Coin("ugpu", 400_000_000)}},
	}, m.sent())
	saved, err := LoadMode(d.cfg.State.Dir)
	require.NoError(t, err)
	require.Equal(t, ModeLeft, saved.Mode)
	require.False(t, saved.LeftAt.IsZero())

	require.NoError(t, d.drain(ctx))
	d.refreshMode()
	d.keepOffers(ctx, t0.Add(time.Hour))
	require.Empty(t, m.sent(), "left once; nothing offered again")
}

// TestLeaveKeepsTheStakeOfOtherMachinesAndTheOperatorsKey: the stake stays
// bonded while the provider has GPUs on another machine; an agent key that
// is not the operator's cannot unbond, and Leave says the operator's
// command instead.
func TestLeaveKeepsTheStakeOfOtherMachinesAndTheOperatorsKey(t *testing.T) {
	ctx := context.Background()
	d, m, _, _ := marketDaemon(t, time.Now(), true)
	res, err := Leave(ctx, m, d.q, testProvider, testProvider, d.localGPUs())
	require.NoError(t, err)
	require.Equal(t, LeaveResult{ClosedOffers: 1, Deregistered: 2, OtherGPUs: 1}, res)
	require.Equal(t, offertypes.OFFER_STATUS_OPEN, m.status(2))
	require.Len(t, m.sent(), 1, "no unbond")

	d, m, _, _ = marketDaemon(t, time.Now(), false)
	res, err = Leave(ctx, m, d.q, testProvider, "idle1agent", d.localGPUs())
	require.NoError(t, err)
	require.Equal(t, LeaveResult{ClosedOffers: 1, Deregistered: 2,
		UnbondCommand: "idlegpud tx provider unbond 400000000ugpu --from " + testProvider}, res)
	txs := m.sent()
	require.Len(t, txs, 1)
	require.Len(t, txs[0], 3)
	require.Equal(t, "idle1agent", txs[0][0].(*offertypes.MsgCloseOffer).Signer)
}

// TestShutdownPausesOffers: a stopping agent pauses its machine's open
// offers in one transaction (not another machine's); nothing when they
// are paused already.
func TestShutdownPausesOffers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	d, m, _, _ := marketDaemon(t, time.Now(), true)
	terms := m.offers[1].Terms
	cancel() // SIGTERM: the daemon's context is done
	d.withdrawOffers(ctx)
	require.Equal(t, [][]sdk.Msg{{setStatus(d, 1, offertypes.OFFER_STATUS_PAUSED, terms)}}, m.sent())
	require.Equal(t, offertypes.OFFER_STATUS_OPEN, m.status(2))
	d.withdrawOffers(ctx)
	require.Empty(t, m.sent())
}

// TestStatusMsgsDropEndedWindows: the chain refuses windows that ended,
// so a pause keeps only the ones to come; an offer with none left is not
// touched (it matches no job).
func TestStatusMsgsDropEndedWindows(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	past := offertypes.Window{Start: now.Add(-3 * time.Hour), End: now.Add(-time.Hour)}
	next := offertypes.Window{Start: now.Add(time.Hour), End: now.Add(3 * time.Hour)}
	offers := []offertypes.Offer{
		{Id: 1, GpuUuids: []string{"GPU-a"}, Status: offertypes.OFFER_STATUS_OPEN, Terms: offertypes.OfferTerms{Windows: []offertypes.Window{past, next}}},
		{Id: 2, GpuUuids: []string{"GPU-b"}, Status: offertypes.OFFER_STATUS_OPEN, Terms: offertypes.OfferTerms{Windows: []offertypes.Window{past}}},
		{Id: 3, GpuUuids: []string{"GPU-a"}, Status: offertypes.OFFER_STATUS_PAUSED},
		{Id: 4, GpuUuids: []string{"GPU-a"}, Status: offertypes.OFFER_STATUS_CLOSED},
	}
	msgs := StatusMsgs(offers, nil, "idle1agent", offertypes.OFFER_STATUS_PAUSED, now)
	require.Equal(t, []sdk.Msg{&offertypes.MsgUpdateOffer{Signer: "idle1agent", OfferId: 1,
		Terms: offertypes.OfferTerms{Windows: []offertypes.Window{next}}, Status: offertypes.OFFER_STATUS_PAUSED}}, msgs)
	require.Len(t, offers[0].Terms.Windows, 2, "the offer read is not changed")
	require.Equal(t, []sdk.Msg{&offertypes.MsgUpdateOffer{Signer: "idle1agent", OfferId: 3, Status: offertypes.OFFER_STATUS_OPEN}},
		StatusMsgs(offers, LocalGPUs([]string{"GPU-a"}), "idle1agent", offertypes.OFFER_STATUS_OPEN, now))
}

// TestModeFile: no file is running; an unreadable one is paused, with the
// error.
func TestModeFile(t *testing.T) {
	dir := t.TempDir()
	s, err := LoadMode(dir)
	require.NoError(t, err)
	require.Equal(t, ModeRunning, s.Mode)
	since := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	require.NoError(t, SaveMode(dir, ModeState{Mode: ModeDraining, Since: since}))
	s, err = LoadMode(dir)
	require.NoError(t, err)
	require.Equal(t, ModeState{Mode: ModeDraining, Since: since}, s)
	require.NoError(t, SaveMode(dir, ModeState{Mode: "sleeping"}))
	s, err = LoadMode(dir)
	require.ErrorContains(t, err, `mode "sleeping": want running, paused, draining or left`)
	require.Equal(t, ModePaused, s.Mode)
}
