package cmd

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	"github.com/cosmos/cosmos-sdk/client"
	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/daemon"
	"github.com/idlegpu/idlegpu/agent/records"
	"github.com/idlegpu/idlegpu/chainclient"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// StatusReport is what `status --json` prints.
type StatusReport struct {
	Provider    string               `json:"provider"`
	GPUBackend  string               `json:"gpu_backend"`
	GPUError    string               `json:"gpu_error,omitempty"`
	Registered  bool                 `json:"registered"`
	Status      string               `json:"status,omitempty"`
	Stake       string               `json:"stake,omitempty"`
	Reliability uint32               `json:"reliability_bps"`
	Unclaimed   string               `json:"unclaimed_rewards"`
	Leases      []LeaseStatus        `json:"leases"`
	Agent       *daemon.HealthReport `json:"agent,omitempty"`
	AgentError  string               `json:"agent_error,omitempty"`
	Local       []records.Record     `json:"local_jobs"`
	Reputation  map[string]uint64    `json:"reputation,omitempty"`
	// Mode is the operator's (the state directory's mode file), and
	// ModeError why it could not be read (then taken as paused).
	Mode      daemon.ModeState `json:"mode"`
	ModeError string           `json:"mode_error,omitempty"`
	// Offers are the provider's offers on chain.
	Offers []OfferStatus `json:"offers"`
}

// OfferStatus is one offer of the provider on chain.
type OfferStatus struct {
	ID     uint64 `json:"id"`
	Status string `json:"status"`
	GPUs   int    `json:"gpus"`
	Leased int    `json:"leased"`
}

// LeaseStatus is one live lease of the provider.
type LeaseStatus struct {
	ID        uint64    `json:"id"`
	Status    string    `json:"status"`
	GPUs      int       `json:"gpus"`
	Price     string    `json:"price"`
	Start     time.Time `json:"start,omitzero"`
	Epochs    uint64    `json:"epochs"`
	Proven    uint64    `json:"epochs_proven"`
	NextEpoch uint64    `json:"next_epoch"`
	Paid      string    `json:"paid"`
	LocalJob  bool      `json:"local_job"`
}

func statusCmd() *cobra.Command {
	var asJSON bool
	var provider string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "The provider's leases, epochs proven and pending, earnings, and the running agent's health",
		Long: `status reads the chain (no key needed: the provider is key.provider, --provider,
or the agent key's address), the agent's local job records, and the running
agent's /healthz on metrics.listen.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			if provider == "" {
				provider = cfg.Key.Provider
			}
			if provider == "" {
				cl, _, err := connect(cmd, cfg)
				if err != nil {
					return err
				}
				provider = cl.Address().String()
				cl.Close()
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			rep, err := buildStatus(ctx, cfg, provider)
			if err != nil {
				return err
			}
			rep.GPUBackend, rep.GPUError = gpuBackendName(cfg.GPU)
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			printStatus(cmd.OutOrStdout(), rep)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&provider, "provider", "", "provider address (default: key.provider or the agent key's)")
	return cmd
}

// queryContext is a client context for queries only (no keyring).
func queryContext(c config.Config) (client.Context, error) {
	enc, err := chainclient.Encoding()
	if err != nil {
		return client.Context{}, err
	}
	rpc, err := rpchttp.New(c.Chain.RPC, "/websocket")
	if err != nil {
		return client.Context{}, fmt.Errorf("chain.rpc %q: %w", c.Chain.RPC, err)
	}
	return client.Context{}.WithCodec(enc.Codec).WithInterfaceRegistry(enc.InterfaceRegistry).
		WithTxConfig(enc.TxConfig).WithNodeURI(c.Chain.RPC).WithClient(rpc), nil
}

func buildStatus(ctx context.Context, cfg config.Config, provider string) (StatusReport, error) {
	rep := StatusReport{Provider: provider, Leases: []LeaseStatus{}, Offers: []OfferStatus{}}
	var err error
	if rep.Mode, err = daemon.LoadMode(cfg.State.Dir); err != nil {
		rep.ModeError = err.Error()
	}
	recs, err := records.Open(cfg.State.Dir)
	if err == nil {
		rep.Local = recs.All()
	}
	local := map[uint64]bool{}
	for _, r := range rep.Local {
		local[r.LeaseID] = true
	}
	rep.Agent, err = agentHealth(ctx, cfg.Metrics.Listen)
	if err != nil {
		rep.AgentError = err.Error()
	}

	qc, err := queryContext(cfg)
	if err != nil {
		return rep, err
	}
	q := daemon.NewQueries(qc)
	info, err := q.ProviderInfo(ctx, provider)
	if err != nil && grpcstatus.Code(err) != codes.NotFound {
		return rep, fmt.Errorf("chain %s: %w", cfg.Chain.RPC, err)
	}
	if err == nil {
		rep.Registered = true
		rep.Status = info.Provider.Status.String()
		rep.Stake = info.Provider.Stake.String()
		r := info.Reputation
		rep.Reliability = r.ReliabilityBps
		rep.Reputation = map[string]uint64{"proven_epochs": r.ProvenEpochs, "missed_epochs": r.MissedEpochs,
			"leases_completed": r.LeasesCompleted, "leases_failed": r.LeasesFailed, "preemptions": r.Preemptions, "frauds": r.Frauds}
	}
	rewards, err := q.Rewards(ctx, provider)
	if err != nil {
		return rep, err
	}
	rep.Unclaimed = rewards.String()
	offers, err := q.ProviderOffers(ctx, provider)
	if err != nil {
		return rep, err
	}
	for _, o := range offers {
		rep.Offers = append(rep.Offers, OfferStatus{ID: o.Id, Status: strings.TrimPrefix(o.Status.String(), "OFFER_STATUS_"),
			GPUs: len(o.GpuUuids), Leased: len(o.OccupiedGpuUuids)})
	}
	for _, st := range []auctiontypes.LeaseStatus{auctiontypes.LEASE_STATUS_PENDING, auctiontypes.LEASE_STATUS_ACTIVE, auctiontypes.LEASE_STATUS_CLOSING} {
		leases, err := q.ProviderLeases(ctx, provider, st)
		if err != nil {
			return rep, err
		}
		for _, l := range leases {
			ls := LeaseStatus{ID: l.Id, Status: strings.TrimPrefix(l.Status.String(), "LEASE_STATUS_"), GPUs: len(l.GpuUuids),
				Price: l.Price.String(), Paid: l.Paid.String(), LocalJob: local[l.Id]}
			if l.Status != auctiontypes.LEASE_STATUS_PENDING {
				ls.Start = l.Start
				if p, err := q.Progress(ctx, l.Id); err == nil {
					ls.Proven, ls.NextEpoch = p.ProvenEpochs, p.NextEpoch
					if p.EpochSeconds > 0 {
						ls.Epochs = settlementtypes.EpochCount(cmp.Or(p.DurationSeconds, l.DurationSeconds), p.EpochSeconds)
					}
				}
			}
			rep.Leases = append(rep.Leases, ls)
		}
	}
	return rep, nil
}

// gpuBackendName is the backend the configuration resolves to on this
// machine ("auto" becomes nvml or fails), and why it fails.
func gpuBackendName(c config.GPU) (string, string) {
	b, err := openGPUs(c, slog.New(slog.DiscardHandler))
	if err != nil {
		return c.Backend, err.Error()
	}
	defer b.Close()
	return b.Name(), ""
}

// agentHealth asks the running agent for its /healthz.
func agentHealth(ctx context.Context, listen string) (*daemon.HealthReport, error) {
	if listen == "" {
		return nil, fmt.Errorf("metrics.listen is off: the agent's health is not served")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+listen+"/healthz", nil)
	if err != nil {
		return nil, err
	}
	res, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("agent not reachable at %s (is `idlegpu-agent run` running?)", listen)
	}
	defer res.Body.Close()
	var h daemon.HealthReport
	if err := json.NewDecoder(res.Body).Decode(&h); err != nil {
		return nil, err
	}
	return &h, nil
}

func printStatus(w io.Writer, r StatusReport) {
	fmt.Fprintf(w, "provider     %s\n", r.Provider)
	if !r.Registered {
		fmt.Fprintf(w, "             not registered: run `idlegpu-agent register`\n")
	} else {
		fmt.Fprintf(w, "status       %s, stake %s, reliability %d.%02d%%\n", strings.TrimPrefix(r.Status, "PROVIDER_STATUS_"), r.Stake, r.Reliability/100, r.Reliability%100)
		fmt.Fprintf(w, "record       %d epochs proven, %d missed; %d leases completed, %d failed, %d preempted, %d frauds\n",
			r.Reputation["proven_epochs"], r.Reputation["missed_epochs"], r.Reputation["leases_completed"],
			r.Reputation["leases_failed"], r.Reputation["preemptions"], r.Reputation["frauds"])
	}
	fmt.Fprintf(w, "unclaimed    %s\n", cmpOr(r.Unclaimed, "nothing"))
	printModeAndOffers(w, r)
	if r.GPUError != "" {
		fmt.Fprintf(w, "gpus         %s: FAILS: %s\n", r.GPUBackend, r.GPUError)
	} else {
		fmt.Fprintf(w, "gpus         backend %s%s\n", r.GPUBackend, simNote(r.GPUBackend))
	}
	switch {
	case r.Agent == nil:
		fmt.Fprintf(w, "agent        DOWN: %s\n", r.AgentError)
	case r.Agent.OK:
		fmt.Fprintf(w, "agent        healthy: block %d, last sample %s, %d proofs sent this run\n", r.Agent.Height, r.Agent.LastSample.Format(time.TimeOnly), r.Agent.ProofsSent)
	default:
		fmt.Fprintf(w, "agent        UNHEALTHY: %s\n", strings.Join(r.Agent.Issues, "; "))
	}
	if r.Agent != nil && r.Agent.OffersPaused {
		fmt.Fprintf(w, "selling      no: offers paused (%s)\n", r.Agent.OffersPausedBy)
	}
	if r.Agent != nil && r.Agent.LastError != "" {
		fmt.Fprintf(w, "last error   %s (%s)\n", r.Agent.LastError, r.Agent.LastErrorAt.Format(time.DateTime))
	}
	if r.Agent != nil {
		for _, a := range r.Agent.Audits {
			fmt.Fprintf(w, "audit %-6d %s on %s: %s %s by %s, answer by %s", a.ID, a.State, a.GPU, a.Reason,
				a.Workload, a.Runner, a.AnswerBy.Format(time.DateTime))
			if !a.ProveBy.IsZero() {
				fmt.Fprintf(w, ", prove by %s", a.ProveBy.Format(time.DateTime))
			}
			if a.Seconds > 0 {
				fmt.Fprintf(w, ", computed in %.1f s", a.Seconds)
			}
			if a.Error != "" {
				fmt.Fprintf(w, " (%s)", a.Error)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)
	if len(r.Leases) == 0 {
		fmt.Fprintln(w, "no pending or active leases")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LEASE\tSTATUS\tGPUS\tPRICE/GPU-H\tEPOCHS PROVEN\tPAID\tJOB HERE")
	for _, l := range r.Leases {
		epochs := "-"
		if l.Status == "ACTIVE" {
			epochs = fmt.Sprintf("%d/%d", l.Proven, l.Epochs)
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\t%t\n", l.ID, l.Status, l.GPUs, l.Price, epochs, l.Paid, l.LocalJob)
	}
	tw.Flush()
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// printModeAndOffers shows the operator's mode (and a drain's progress as
// the running agent reports it) and the offers on chain.
func printModeAndOffers(w io.Writer, r StatusReport) {
	mode := string(r.Mode.Mode)
	if !r.Mode.Since.IsZero() {
		mode += " since " + r.Mode.Since.Format(time.DateTime)
	}
	switch {
	case r.ModeError != "":
		mode = "UNREADABLE, taken as paused: " + r.ModeError
	case r.Mode.Mode == daemon.ModeLeft && !r.Mode.LeftAt.IsZero():
		mode += "; left at " + r.Mode.LeftAt.Format(time.DateTime) + " (offers closed, GPUs deregistered)"
	case r.Mode.Mode == daemon.ModeDraining || r.Mode.Mode == daemon.ModeLeft:
		switch {
		case r.Agent == nil:
			mode += "; the agent is not running to finish it"
		case r.Agent.Drained:
			mode += "; drained"
		case r.Agent.Mode == r.Mode.Mode:
			mode += fmt.Sprintf("; %d leases still live", r.Agent.LiveLeases)
		}
	}
	fmt.Fprintf(w, "mode         %s\n", mode)
	counts := map[string]int{}
	for _, o := range r.Offers {
		counts[strings.ToLower(o.Status)]++
	}
	if len(r.Offers) == 0 {
		fmt.Fprintln(w, "offers       none on chain")
		return
	}
	var parts []string
	for _, st := range []string{"open", "paused", "closed"} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	fmt.Fprintf(w, "offers       %s\n", strings.Join(parts, ", "))
}
