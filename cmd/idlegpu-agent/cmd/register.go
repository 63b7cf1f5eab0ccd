package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/endpoint"
	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

const (
	flagMoniker  = "moniker"
	flagRegion   = "region"
	flagEndpoint = "endpoint"
	flagCertHash = "tls-cert-sha256"
	flagBond     = "bond"
	flagDryRun   = "dry-run"
)

// registerOptions are register's flags.
type registerOptions struct {
	moniker, region, endpoint, certHash string
	bond                                string
	dryRun                              bool
}

func registerCmd() *cobra.Command {
	var o registerOptions
	cmd := &cobra.Command{
		Use:   "register",
		Short: "Make the chain know this machine: register the provider, bond its stake and register its GPUs, as far as missing",
		Long: `Compares the chain with this machine and sends, in one transaction, only what is missing:

  1. MsgRegisterProvider, when the provider is not registered (the agent key must be
     its operator; --region and --endpoint are then required);
  2. MsgBond of the difference, when --bond names more than the bonded stake
     (operator only);
  3. MsgRegisterGPUs with the GPUs the telemetry backend sees that the chain does not
     have yet (operator or agent key).

Running it again when everything is registered sends nothing. A GPU registered to
another provider is an error. --dry-run prints the messages as JSON instead.

Simulated GPUs (gpu.backend = "sim") are registered, marked simulated, only on a
chain that allows them (x/provider allow_simulated_gpus: a development chain,
made with idlegpud genesis development); anywhere else register refuses them.`,
		Example: `idlegpu-agent register --region eu-de-fra1 --endpoint https://gpu.example.com:9180 --tls-cert-sha256 9f86... --bond 400000000ugpu
idlegpu-agent register            # an agent key: registers the GPUs not yet on chain
idlegpu-agent register --dry-run  # prints what it would send`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRegister(cmd, o) },
	}
	host, _ := os.Hostname()
	f := cmd.Flags()
	f.StringVar(&o.moniker, flagMoniker, host, "provider name shown to renters (when registering)")
	f.StringVar(&o.region, flagRegion, "", "provider region continent[-country[-site]], e.g. eu-de-fra1 (required when registering)")
	f.StringVar(&o.endpoint, flagEndpoint, "", "renter-facing URL of this agent, e.g. https://host:9180 (required when registering)")
	f.StringVar(&o.certHash, flagCertHash, "", "SHA-256 of the endpoint's TLS certificate, 64 hex digits (default for an https endpoint: the pin of endpoint.tls_cert)")
	f.StringVar(&o.bond, flagBond, "", "stake the provider should have bonded, e.g. 400gpu or 400000000ugpu; the difference is bonded (operator only)")
	f.BoolVar(&o.dryRun, flagDryRun, false, "print the messages as JSON and send nothing")
	return cmd
}

func runRegister(cmd *cobra.Command, o registerOptions) error {
	ctx := cmd.Context()
	log, err := logger(cmd)
	if err != nil {
		return err
	}
	cfg, err := loadConfig(cmd)
	if err != nil {
		return err
	}
	if o.certHash == "" && strings.HasPrefix(o.endpoint, "https://") && cfg.Endpoint.TLS() {
		// The pin of the certificate the agent serves (init made it).
		if o.certHash, err = endpoint.CertPin(cfg.Endpoint.TLSCert); err != nil {
			return fmt.Errorf("--%s not given and endpoint.tls_cert unreadable: %w", flagCertHash, err)
		}
	}
	b, err := openGPUs(cfg.GPU, log)
	if err != nil {
		return err
	}
	defer b.Close()
	cl, err := newChainClient(cmd, cfg, log)
	if err != nil {
		return err
	}
	defer cl.Close()
	q := providertypes.NewQueryClient(cl.Context())
	if b.Name() == "sim" {
		if err := requireSimAllowed(ctx, q, cfg.Chain.ChainID); err != nil {
			return err
		}
	}
	devs, err := b.Devices(ctx)
	if err != nil {
		return fmt.Errorf("list GPUs: %w", err)
	}

	r, err := planRegistration(ctx, q, cl.Address(), providerAddress(cfg, cl), gpuInfos(devs, b.Name() == "sim"), o)
	if err != nil {
		return err
	}
	errOut := cmd.ErrOrStderr()
	if r.registered {
		for _, d := range []struct{ flag, given, onChain string }{
			{flagMoniker, o.moniker, r.current.Moniker}, {flagRegion, o.region, r.current.Region},
			{flagEndpoint, o.endpoint, r.current.Endpoint}, {flagCertHash, o.certHash, r.current.TlsCertSha256},
		} {
			if cmd.Flags().Changed(d.flag) && d.given != d.onChain {
				fmt.Fprintf(errOut, "note: provider %s is registered with %s %q; --%s %q is ignored (the operator changes it with idlegpud tx provider update-provider)\n",
					r.provider, d.flag, d.onChain, d.flag, d.given)
			}
		}
	}
	for _, w := range r.warnings {
		fmt.Fprintf(errOut, "WARNING: %s\n", w)
	}
	if o.dryRun {
		return writeMsgsJSON(cmd, r.msgs)
	}

	out := cmd.OutOrStdout()
	if len(r.msgs) == 0 {
		fmt.Fprintln(out, "already registered, nothing to do")
	} else {
		res, err := cl.Submit(ctx, r.msgs...)
		if err != nil {
			return fmt.Errorf("register: %w", err)
		}
		if !r.registered {
			fmt.Fprintf(out, "registered provider %s\n", r.provider)
		}
		if r.bond.IsPositive() {
			fmt.Fprintf(out, "bonded %s\n", r.bond)
		}
		if len(r.newGPUs) > 0 {
			fmt.Fprintf(out, "registered %d GPUs\n", len(r.newGPUs))
		}
		fmt.Fprintf(out, "tx %s (height %d)\n", res.TxHash, res.Height)
	}
	return writeRegistrationSummary(ctx, cmd, q, r)
}

// registration is what the chain knows of this machine and the messages
// that add what it lacks.
type registration struct {
	provider   string
	registered bool                   // the provider existed before
	current    providertypes.Provider // as registered (zero when not)
	params     providertypes.Params
	bond       sdk.Coin                // to bond now (zero when nothing)
	newGPUs    []providertypes.GPUInfo // to register now
	knownGPUs  []providertypes.GPUInfo // already the provider's
	msgs       []sdk.Msg
	warnings   []string
}

// planRegistration queries the chain and builds the messages for what is
// missing; nothing is sent. Errors are what no message could fix from this
// key: a provider only its operator can register, a bond only the operator
// can make, a GPU that belongs to another provider.
func planRegistration(ctx context.Context, q providertypes.QueryClient, signer sdk.AccAddress, provider string,
	local []providertypes.GPUInfo, o registerOptions,
) (registration, error) {
	providerAddr, err := sdk.AccAddressFromBech32(provider)
	if err != nil {
		return registration{}, fmt.Errorf("provider address %q: %w", provider, err)
	}
	r := registration{provider: providerAddr.String()}
	operator := providerAddr.Equals(signer)
	pres, err := q.Params(ctx, &providertypes.QueryParamsRequest{})
	if err != nil {
		return r, fmt.Errorf("query provider params: %w", err)
	}
	r.params = pres.Params
	denom := r.params.StakeDenom()
	r.bond = sdk.NewCoin(denom, sdkmath.ZeroInt())

	res, err := q.Provider(ctx, &providertypes.QueryProviderRequest{Operator: r.provider})
	switch {
	case err == nil:
		r.registered, r.current = true, res.Provider
	case status.Code(err) != codes.NotFound:
		return r, fmt.Errorf("query provider %s: %w", r.provider, err)
	case !operator:
		return r, fmt.Errorf("provider %s is not registered, and the agent key %s is not its operator: register the provider first with the operator's key (idlegpu-agent register, or idlegpud tx provider register-provider ... --from %s)",
			r.provider, signer, r.provider)
	default:
		msg, err := registerProviderMsg(r.provider, o)
		if err != nil {
			return r, err
		}
		r.msgs = append(r.msgs, msg)
	}
	if r.registered && !operator && !slices.Contains(r.current.Agents, signer.String()) {
		return r, fmt.Errorf("the agent key %s is neither the operator of provider %s nor one of its agents: the operator names it (idlegpud tx provider update-provider <moniker> <region> <endpoint> --agents %s --from %s)",
			signer, r.provider, signer, r.provider)
	}

	stake := sdkmath.ZeroInt()
	if r.registered {
		stake = r.current.Stake.Amount
	}
	if o.bond != "" {
		// Read as every amount is ("200gpu", "200 GPU" or "200000000ugpu"),
		// in the units of the chain's genesis metadata, which nothing on
		// chain changes.
		want, err := units.ParseCoin(o.bond, chaincfg.DenomMetadata(), denom)
		if err != nil {
			return r, fmt.Errorf("--%s: %w", flagBond, err)
		}
		if want.Denom != denom {
			return r, fmt.Errorf("--%s %s: stake is bonded in %s", flagBond, want, denom)
		}
		if stake.LT(want.Amount) {
			if !operator {
				return r, fmt.Errorf("--%s: provider %s has %s%s bonded, and only its operator can bond more (idlegpud tx provider bond %s%s --from %s)",
					flagBond, r.provider, stake, denom, want.Amount.Sub(stake), denom, r.provider)
			}
			r.bond = sdk.NewCoin(denom, want.Amount.Sub(stake))
			r.msgs = append(r.msgs, &providertypes.MsgBond{Operator: r.provider, Amount: r.bond})
		}
	}

	for _, g := range local {
		if err := g.Validate(); err != nil {
			return r, fmt.Errorf("GPU %s as the telemetry backend reports it: %w", g.Uuid, err)
		}
		res, err := q.GPU(ctx, &providertypes.QueryGPURequest{Uuid: g.Uuid})
		switch {
		case status.Code(err) == codes.NotFound:
			r.newGPUs = append(r.newGPUs, g)
		case err != nil:
			return r, fmt.Errorf("query GPU %s: %w", g.Uuid, err)
		case res.Gpu.Provider == r.provider:
			r.knownGPUs = append(r.knownGPUs, g)
		default:
			return r, fmt.Errorf("GPU %s is registered to another provider, %s: that provider deregisters it first (idlegpud tx provider deregister-gpu %s %s)",
				g.Uuid, res.Gpu.Provider, res.Gpu.Provider, g.Uuid)
		}
	}
	for chunk := range slices.Chunk(r.newGPUs, int(max(r.params.MaxGpusPerMsg, 1))) {
		r.msgs = append(r.msgs, &providertypes.MsgRegisterGPUs{Signer: signer.String(), Provider: r.provider, Gpus: chunk})
	}

	// Offering all the GPUs commits them, which needs this much stake.
	gpus := r.current.GpuCount + uint32(len(r.newGPUs))
	need := r.params.RequiredStake(max(gpus, 1))
	if after := stake.Add(r.bond.Amount); after.LT(need) {
		how := fmt.Sprintf("idlegpu-agent register --%s %s%s", flagBond, need, denom)
		if !operator {
			how = fmt.Sprintf("idlegpud tx provider bond %s%s --from %s", need.Sub(after), denom, r.provider)
		}
		r.warnings = append(r.warnings, fmt.Sprintf(
			"provider %s will have %s%s bonded, but its %d GPUs need %s%s (%s per GPU): offers will be refused until it is bonded: %s",
			r.provider, after, denom, gpus, need, denom, r.params.MinStakePerGpu, how))
	}
	return r, nil
}

// registerProviderMsg is the operator's MsgRegisterProvider, checked here
// with the chain's own rules so a bad flag is named before anything is sent.
func registerProviderMsg(operator string, o registerOptions) (*providertypes.MsgRegisterProvider, error) {
	if o.region == "" || o.endpoint == "" {
		return nil, fmt.Errorf("provider %s is not registered: --%s and --%s are required to register it", operator, flagRegion, flagEndpoint)
	}
	if err := providertypes.ValidateDescription(o.moniker, o.region, o.endpoint, o.certHash); err != nil {
		return nil, fmt.Errorf("registering provider %s (--%s, --%s, --%s, --%s): %w", operator, flagMoniker, flagRegion, flagEndpoint, flagCertHash, err)
	}
	return &providertypes.MsgRegisterProvider{
		Operator: operator, Moniker: o.moniker, Region: o.region, Endpoint: o.endpoint, TlsCertSha256: o.certHash,
	}, nil
}

// writeMsgsJSON prints {"messages": [...]}, each message in the app codec's
// JSON with its "@type", as a tx body lists them.
func writeMsgsJSON(cmd *cobra.Command, msgs []sdk.Msg) error {
	enc, err := chainclient.Encoding()
	if err != nil {
		return err
	}
	out := struct {
		Messages []json.RawMessage `json:"messages"`
	}{Messages: make([]json.RawMessage, 0, len(msgs))}
	for _, m := range msgs {
		b, err := enc.Codec.MarshalInterfaceJSON(m)
		if err != nil {
			return err
		}
		out.Messages = append(out.Messages, b)
	}
	return writeJSON(cmd, out)
}

// writeRegistrationSummary prints the provider as the chain now has it and
// this machine's GPUs.
func writeRegistrationSummary(ctx context.Context, cmd *cobra.Command, q providertypes.QueryClient, r registration) error {
	res, err := q.Provider(ctx, &providertypes.QueryProviderRequest{Operator: r.provider})
	if err != nil {
		return fmt.Errorf("query provider %s: %w", r.provider, err)
	}
	p := res.Provider
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "\nprovider %s %q\n", p.Operator, p.Moniker)
	fmt.Fprintf(out, "  region %s, endpoint %s\n", p.Region, p.Endpoint)
	fmt.Fprintf(out, "  status %s, stake %s, %d GPUs registered (%s needed to offer them all)\n",
		strings.TrimPrefix(p.Status.String(), "PROVIDER_STATUS_"), p.Stake, p.GpuCount,
		sdk.NewCoin(r.params.StakeDenom(), r.params.RequiredStake(max(p.GpuCount, 1))))
	fmt.Fprintf(out, "this machine's GPUs:\n")
	for _, g := range r.knownGPUs {
		fmt.Fprintf(out, "  %s  %s  already registered\n", g.Uuid, g.Model)
	}
	for _, g := range r.newGPUs {
		fmt.Fprintf(out, "  %s  %s  registered now\n", g.Uuid, g.Model)
	}
	return nil
}
