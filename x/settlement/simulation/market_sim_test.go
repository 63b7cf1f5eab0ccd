package simulation_test

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cosmos/cosmos-sdk/testutil/simsx"

	"github.com/idlegpu/idlegpu/app/apptesting"
	auctionkeeper "github.com/idlegpu/idlegpu/x/auction/keeper"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"github.com/idlegpu/idlegpu/x/settlement/keeper"
	"github.com/idlegpu/idlegpu/x/settlement/simulation"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// The SDK simulator (app/sim_test.go) forms no leases — its blocks carry
// no header hash and come hours apart — so the liveness rules are run here
// through the real app instead: `make sim` runs the defaults, `make
// sim-long` more seeds and blocks.
var (
	marketSeed   = flag.Int64("MarketSeed", 0, "TestMarketSimulation's first seed (0: $MARKET_SEED, else 1)")
	marketSeeds  = flag.Int("MarketSeeds", 3, "how many seeds TestMarketSimulation runs, from its first on")
	marketBlocks = flag.Int("MarketBlocks", 300, "blocks per TestMarketSimulation run")
)

// behaviour is how a sim provider's agent proves its leases.
type behaviour int

const (
	honest      behaviour = iota // proves every epoch it can
	alternating                  // proves even epochs only (MsgSubmitProofsFactory)
	absent                       // proves nothing
)

func (b behaviour) String() string { return [...]string{"honest", "alternating", "absent"}[b] }

// marketProviders are the run's providers, each with its operator and agent
// accounts and four H100s.
var marketProviders = []behaviour{honest, alternating, honest, absent, alternating, honest}

const (
	marketRenters    = 4
	marketGPUs       = 4
	marketStartAfter = 300 * time.Second // auction start_timeout_seconds
	// marketRetention is x/auction's record_retention_seconds: short enough
	// that a run prunes the jobs that ended in its first hours, at most
	// marketPrunes a block.
	marketRetention = 2 * time.Hour
	marketPrunes    = 2
)

// livenessReason is x/settlement's reason for a lease failed by misses.
var livenessReason = regexp.MustCompile(`^(\d+) of the last (\d+) epochs without a proof$`)

// marketTally is what a run counts, for its log and its final checks.
type marketTally struct {
	status                           map[auctiontypes.LeaseStatus]int
	expired, expiredSilver           int
	failedByWindow, failedByRow      int
	excused, proofs, started, closes int
	slow, halts                      int
	pruned                           int
}

func firstMarketSeed() int64 {
	if *marketSeed != 0 {
		return *marketSeed
	}
	if s, err := strconv.ParseInt(os.Getenv("MARKET_SEED"), 10, 64); err == nil && s != 0 {
		return s
	}
	return 1
}

// TestMarketSimulation runs a seeded random market through the real app:
// renters post SILVER and BRONZE jobs, providers start some leases and let
// others expire, honest agents prove every epoch, alternating ones every
// other, absent ones none; renters and providers close leases; now and
// then a block is slow or the chain halts for longer than an epoch. Every
// module's invariants hold after every block, and the liveness rules hold:
// honest providers are never slashed or jailed and their settled leases
// are completions; alternating ones fail by the miss window and are
// jailed; every expiry costs its provider.
func TestMarketSimulation(t *testing.T) {
	first := firstMarketSeed()
	byWindow := 0
	for seed := first; seed < first+int64(*marketSeeds); seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { byWindow += runMarket(t, seed, *marketBlocks) })
	}
	// Per seed, the two alternating providers are jailed at their first
	// failure, and a halt's excused epoch between two misses keeps the row
	// (an excuse neither resets nor extends it), so one seed may see only
	// row failures; across the seeds the window must fail leases.
	require.Positive(t, byWindow, "no lease failed by misses that were not in a row")
}

// marketRun is one seed's market.
type marketRun struct {
	*proofChain
	r      *rand.Rand
	params types.Params
	// startAt is the block a provider starts a PENDING lease in, -1 never.
	startAt map[uint64]int
	// started are the leases that became ACTIVE.
	started map[uint64]bool
	tally   marketTally
	// genesis is the run's first block time.
	genesis time.Time
}

func (m *marketRun) operator(p int) string { return m.addr(2 * p) }
func (m *marketRun) agent(p int) string    { return m.addr(2*p + 1) }
func (m *marketRun) renter(i int) string   { return m.addr(2*len(marketProviders) + i) }

// providerOf is the index of the provider operating addr.
func (m *marketRun) providerOf(addr string) int {
	for p := range marketProviders {
		if m.operator(p) == addr {
			return p
		}
	}
	m.t.Fatalf("no sim provider %s", addr)
	return -1
}

// runMarket plays one seed's market for blocks blocks and returns how many
// leases failed by the miss window with misses not in a row.
func runMarket(t *testing.T, seed int64, blocks int) int {
	params := types.DefaultParams()
	params.EpochSeconds, params.SampleIntervalSeconds, params.MinSamplesRatioBps, params.ProofGraceSeconds = 600, 10, 9000, 300
	params.ExpectedBlockMillis = uint64(proofBlockStep / time.Millisecond) // only a longer gap is lost time
	params.MaxMissedEpochs, params.MissWindowEpochs = 2, 4
	require.NoError(t, params.Validate())
	m := &marketRun{
		proofChain: newProofChainOf(t, 2*len(marketProviders)+marketRenters, params),
		r:          rand.New(rand.NewSource(seed)),
		params:     params,
		startAt:    map[uint64]int{},
		started:    map[uint64]bool{},
		tally:      marketTally{status: map[auctiontypes.LeaseStatus]int{}},
	}
	ap, err := m.app.AuctionKeeper.Params.Get(m.ctx)
	require.NoError(t, err)
	ap.StartTimeoutSeconds = uint64(marketStartAfter / time.Second)
	ap.RecordRetentionSeconds, ap.MaxRecordPrunesPerBlock = uint64(marketRetention/time.Second), marketPrunes
	require.NoError(t, m.app.AuctionKeeper.Params.Set(m.ctx, ap))

	m.genesis = m.ctx.BlockTime()
	market := apptesting.Market{TB: t, App: m.app, Ctx: m.ctx}
	for p := range marketProviders {
		market.Provide(m.operator(p), apptesting.Provider{
			Moniker: fmt.Sprintf("p%d", p), Region: "eu-de", Agents: []string{m.agent(p)},
			GPUs:  apptesting.GPUs(p*marketGPUs+1, marketGPUs, apptesting.H100, apptesting.H100MemoryMib),
			Stake: market.RequiredStake(marketGPUs), ReliabilityBps: 10_000,
			OnDemand: 800_000 + m.r.Int63n(400_000),
		})
	}

	for block := range blocks {
		m.postJobs()
		m.startLeases(block)
		m.prove()
		m.closeLeases()
		m.endBlock()
	}
	m.finalChecks()
	return m.tally.failedByWindow
}

// postJobs has each renter post a job now and then: one or two GPUs, a
// SILVER or BRONZE tier, one to eight epochs and maybe a part of one.
func (m *marketRun) postJobs() {
	market := apptesting.Market{TB: m.t, App: m.app, Ctx: m.ctx}
	for i := range marketRenters {
		if m.r.Intn(10) >= 3 {
			continue
		}
		spec := apptesting.TrainingJob(uint32(1+m.r.Intn(2)), 2_000_000)
		if m.r.Intn(10) < 3 {
			spec.Tier, spec.Preemptible = auctiontypes.TIER_BRONZE, true
		}
		spec.DurationSeconds = m.params.EpochSeconds * uint64(1+m.r.Intn(8))
		if m.r.Intn(2) == 0 {
			spec.DurationSeconds += uint64(m.r.Intn(int(m.params.EpochSeconds)))
		}
		market.PostJob(m.renter(i), spec)
	}
}

// leases are every lease, by id.
func (m *marketRun) leases() []auctiontypes.Lease {
	var out []auctiontypes.Lease
	require.NoError(m.t, m.app.AuctionKeeper.Leases.Walk(m.ctx, nil, func(_ uint64, l auctiontypes.Lease) (bool, error) {
		out = append(out, l)
		return false, nil
	}))
	return out
}

// startLeases has providers start PENDING leases a few blocks after they
// appear, and leave about one in five unstarted until it expires.
func (m *marketRun) startLeases(block int) {
	msgServer := auctionkeeper.NewMsgServerImpl(m.app.AuctionKeeper)
	for _, l := range m.leases() {
		if l.Status != auctiontypes.LEASE_STATUS_PENDING {
			continue
		}
		at, seen := m.startAt[l.Id]
		if !seen {
			at = block + m.r.Intn(4)
			if m.r.Intn(5) == 0 {
				at = -1
			}
			m.startAt[l.Id] = at
		}
		if at < 0 || block < at {
			continue
		}
		_, err := msgServer.StartLease(m.ctx, &auctiontypes.MsgStartLease{Signer: m.agent(m.providerOf(l.Provider)), LeaseId: l.Id})
		require.NoError(m.t, err, "start lease %d", l.Id)
		m.started[l.Id] = true
		m.tally.started++
	}
}

// prove has honest agents prove every epoch they can and alternating ones
// the even epochs (MsgSubmitProofsFactory); absent agents do nothing.
func (m *marketRun) prove() {
	msgServer := keeper.NewMsgServerImpl(m.app.SettlementKeeper)
	submit := func(msg *types.MsgSubmitProofs) {
		require.NoError(m.t, msg.ValidateBasic())
		_, err := msgServer.SubmitProofs(m.ctx, msg)
		require.NoError(m.t, err, "lease %d epoch %d", msg.Proofs[0].LeaseId, msg.Proofs[0].Epoch)
		m.tally.proofs += len(msg.Proofs)
	}
	for _, l := range m.leases() {
		if l.Status != auctiontypes.LEASE_STATUS_ACTIVE && l.Status != auctiontypes.LEASE_STATUS_CLOSING {
			continue
		}
		p := m.providerOf(l.Provider)
		if marketProviders[p] != honest {
			continue
		}
		for range 3 { // a halt may leave more than one epoch to prove
			proof, ok, err := simulation.ProveNextEpoch(m.ctx, m.app.SettlementKeeper, m.app.AuctionKeeper, m.app.ProviderKeeper, l.Id, m.r)
			require.NoError(m.t, err)
			if !ok {
				break
			}
			submit(&types.MsgSubmitProofs{Signer: m.agent(p), Provider: l.Provider, Proofs: []types.ExecutionProof{proof}})
		}
	}
	factory := simulation.MsgSubmitProofsFactory(m.app.SettlementKeeper, m.app.AuctionKeeper, m.app.ProviderKeeper)
	var ids []int
	for p, b := range marketProviders {
		if b == alternating {
			ids = append(ids, 2*p, 2*p+1)
		}
	}
	for range 50 {
		testData := simsx.NewChainDataSource(m.ctx, m.r, m.app.AccountKeeper, m.app.BankKeeper, m.app.AccountKeeper.AddressCodec(), m.simAccounts(ids...)...)
		reporter := simsx.NewBasicSimulationReporter()
		_, msg := factory(m.ctx, testData, reporter)
		if reporter.IsSkipped() {
			return
		}
		submit(msg)
	}
	m.t.Fatal("the proof factory never ran out of epochs to prove")
}

// closeLeases has renters, and now and then providers, close running leases.
func (m *marketRun) closeLeases() {
	msgServer := auctionkeeper.NewMsgServerImpl(m.app.AuctionKeeper)
	for _, l := range m.leases() {
		if l.Status != auctiontypes.LEASE_STATUS_ACTIVE && l.Status != auctiontypes.LEASE_STATUS_PENDING {
			continue
		}
		var signer string
		switch n := m.r.Intn(200); {
		case n < 2: // 1 % a block
			signer = l.Renter
		case n < 3 && l.Status == auctiontypes.LEASE_STATUS_ACTIVE:
			signer = l.Provider
		default:
			continue
		}
		_, err := msgServer.CloseLease(m.ctx, &auctiontypes.MsgCloseLease{Signer: signer, LeaseId: l.Id, Reason: "sim close"})
		require.NoError(m.t, err, "close lease %d", l.Id)
		m.tally.closes++
	}
}

// providerState is a provider's record and reputation.
type providerState struct {
	p   providertypes.Provider
	rep providertypes.Reputation
}

func (m *marketRun) providerStates() []providerState {
	out := make([]providerState, len(marketProviders))
	for i := range marketProviders {
		addr := m.accs[2*i].Address
		p, err := m.app.ProviderKeeper.Provider(m.ctx, addr)
		require.NoError(m.t, err)
		rep, err := m.app.ProviderKeeper.Reputations.Get(m.ctx, addr)
		require.NoError(m.t, err)
		out[i] = providerState{p: p, rep: rep}
	}
	return out
}

// endBlock ends the block after a normal, slow or halted gap, then checks
// the invariants and what the EndBlockers did to each lease that ended.
func (m *marketRun) endBlock() {
	before := map[uint64]auctiontypes.LeaseStatus{}
	for _, l := range m.leases() {
		before[l.Id] = l.Status
	}
	was := m.providerStates()

	gap := proofBlockStep
	switch n := m.r.Intn(100); {
	case n < 2: // a halt longer than an epoch
		gap = time.Duration(m.params.EpochSeconds)*time.Second + proofBlockStep + time.Duration(m.r.Intn(900))*time.Second
		m.tally.halts++
	case n < 8: // a slow block: two to three steps
		gap = 2*proofBlockStep + time.Duration(m.r.Intn(61))*time.Second
		m.tally.slow++
	}
	m.nextBlockAfter(gap)

	require.NoError(m.t, m.app.SettlementKeeper.CheckInvariants(m.ctx))
	require.NoError(m.t, m.app.AuctionKeeper.CheckInvariants(m.ctx))
	require.NoError(m.t, m.app.OfferKeeper.CheckInvariants(m.ctx))
	require.NoError(m.t, m.app.ProviderKeeper.CheckInvariants(m.ctx))

	present := map[uint64]bool{}
	for _, l := range m.leases() {
		present[l.Id] = true
	}
	for id, st := range before { // any order: it counts and checks
		if present[id] {
			continue
		}
		// Only an ended lease leaves state, with its job and progress.
		require.Contains(m.t, []auctiontypes.LeaseStatus{auctiontypes.LEASE_STATUS_COMPLETED, auctiontypes.LEASE_STATUS_CLOSED,
			auctiontypes.LEASE_STATUS_PREEMPTED, auctiontypes.LEASE_STATUS_FAILED, auctiontypes.LEASE_STATUS_EXPIRED,
			auctiontypes.LEASE_STATUS_SLASHED}, st, "lease %d pruned while %s", id, st)
		has, err := m.app.SettlementKeeper.Progress.Has(m.ctx, id)
		require.NoError(m.t, err)
		require.False(m.t, has, "pruned lease %d left its progress", id)
		m.tally.pruned++
	}

	now := m.providerStates()
	expiredFailed := make([]uint64, len(marketProviders))
	expiredPreempted := make([]uint64, len(marketProviders))
	completions := make([]uint64, len(marketProviders))
	for _, l := range m.leases() {
		if before[l.Id] == l.Status {
			continue
		}
		p := m.providerOf(l.Provider)
		switch l.Status {
		case auctiontypes.LEASE_STATUS_EXPIRED:
			m.tally.expired++
			if l.Tier == auctiontypes.TIER_BRONZE {
				expiredPreempted[p]++ // a BRONZE lease may be taken back
			} else {
				m.tally.expiredSilver++
				expiredFailed[p]++
			}
		case auctiontypes.LEASE_STATUS_FAILED:
			require.NotEqual(m.t, honest, marketProviders[p], "lease %d of an honest provider failed: %s", l.Id, l.Reason)
			match := livenessReason.FindStringSubmatch(l.Reason)
			require.NotNil(m.t, match, "lease %d failed: %q", l.Id, l.Reason)
			require.Equal(m.t, strconv.Itoa(int(m.params.MaxMissedEpochs)), match[1])
			require.Equal(m.t, strconv.Itoa(int(m.params.MissWindowEpochs)), match[2])
			prog := m.progress(l.Id)
			if prog.MissedInRow < prog.MaxMissedEpochs {
				m.tally.failedByWindow++
			} else {
				m.tally.failedByRow++
			}
			require.Equal(m.t, providertypes.PROVIDER_STATUS_JAILED, now[p].p.Status, "provider %d after lease %d failed", p, l.Id)
			require.True(m.t, now[p].p.Stake.Amount.LT(was[p].p.Stake.Amount), "provider %d not slashed for lease %d", p, l.Id)
		case auctiontypes.LEASE_STATUS_COMPLETED:
			if marketProviders[p] == honest && before[l.Id] == auctiontypes.LEASE_STATUS_ACTIVE {
				prog := m.progress(l.Id)
				require.Zero(m.t, prog.MissedEpochs, "honest lease %d missed an epoch", l.Id)
				if prog.Completion() {
					completions[p]++
				}
			}
		}
	}
	for p, b := range marketProviders {
		rep, old := now[p].rep, was[p].rep
		require.LessOrEqual(m.t, rep.ReliabilityBps, uint32(10_000))
		require.GreaterOrEqual(m.t, rep.LeasesFailed-old.LeasesFailed, expiredFailed[p], "provider %d: an expiry is a failed lease", p)
		require.GreaterOrEqual(m.t, rep.Preemptions-old.Preemptions, expiredPreempted[p], "provider %d: a BRONZE expiry is a preemption", p)
		if expiredFailed[p] > 0 {
			require.Less(m.t, rep.ReliabilityBps, old.ReliabilityBps+1, "provider %d: an expiry is a reliability step down", p)
			require.Greater(m.t, rep.MissedEpochs, old.MissedEpochs, "provider %d: an expiry is a missed epoch", p)
		}
		if b == honest {
			require.NotEqual(m.t, providertypes.PROVIDER_STATUS_JAILED, now[p].p.Status, "honest provider %d jailed", p)
			require.True(m.t, now[p].p.Stake.Amount.GTE(was[p].p.Stake.Amount), "honest provider %d slashed", p)
			require.Equal(m.t, completions[p], rep.LeasesCompleted-old.LeasesCompleted, "honest provider %d: settled leases are completions", p)
		}
	}
}

func (m *marketRun) progress(id uint64) types.LeaseProgress {
	prog, err := m.app.SettlementKeeper.Progress.Get(m.ctx, id)
	require.NoError(m.t, err)
	return prog
}

// finalChecks checks every lease as it stands at the end, logs the counts
// and requires that the run saw expiries, window failures and completions.
func (m *marketRun) finalChecks() {
	for _, l := range m.leases() {
		m.tally.status[l.Status]++
		if !m.started[l.Id] {
			continue
		}
		prog := m.progress(l.Id)
		m.tally.excused += int(prog.ExcusedEpochs)
		switch p := m.providerOf(l.Provider); marketProviders[p] {
		case honest:
			require.Zero(m.t, prog.MissedEpochs, "honest lease %d", l.Id)
		case alternating:
			// Run long enough, never closed and never excused, an
			// alternating agent's lease fails on the window alone.
			if prog.NextEpoch >= uint64(prog.MissWindowEpochs) && prog.ExcusedEpochs == 0 && l.Status != auctiontypes.LEASE_STATUS_CLOSED &&
				l.Status != auctiontypes.LEASE_STATUS_CLOSING && l.Status != auctiontypes.LEASE_STATUS_PREEMPTED {
				require.Equal(m.t, auctiontypes.LEASE_STATUS_FAILED, l.Status, "alternating lease %d after %d epochs", l.Id, prog.NextEpoch)
				require.Less(m.t, prog.MissedInRow, prog.MaxMissedEpochs, "alternating lease %d", l.Id)
			}
		}
	}
	tl := m.tally
	m.t.Logf("leases by status: PENDING %d ACTIVE %d CLOSING %d COMPLETED %d CLOSED %d PREEMPTED %d FAILED %d EXPIRED %d",
		tl.status[auctiontypes.LEASE_STATUS_PENDING], tl.status[auctiontypes.LEASE_STATUS_ACTIVE], tl.status[auctiontypes.LEASE_STATUS_CLOSING],
		tl.status[auctiontypes.LEASE_STATUS_COMPLETED], tl.status[auctiontypes.LEASE_STATUS_CLOSED], tl.status[auctiontypes.LEASE_STATUS_PREEMPTED],
		tl.status[auctiontypes.LEASE_STATUS_FAILED], tl.status[auctiontypes.LEASE_STATUS_EXPIRED])
	m.t.Logf("started %d, closes %d, expiries %d (SILVER %d), failed by the miss window %d, by a row %d, excused epochs %d, proofs accepted %d, slow blocks %d, halts %d, leases pruned %d",
		tl.started, tl.closes, tl.expired, tl.expiredSilver, tl.failedByWindow, tl.failedByRow, tl.excused, tl.proofs, tl.slow, tl.halts, tl.pruned)
	require.Positive(m.t, tl.status[auctiontypes.LEASE_STATUS_EXPIRED])
	require.Positive(m.t, tl.status[auctiontypes.LEASE_STATUS_COMPLETED])
	if m.ctx.BlockTime().Sub(m.genesis) > 3*marketRetention {
		require.Positive(m.t, tl.pruned, "a run three retentions long prunes")
	}
}
