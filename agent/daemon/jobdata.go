package daemon

import (
	"context"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/jobdata"
	"github.com/idlegpu/idlegpu/endpoint"
)

// openJobData opens the store of leases' inputs and outputs; listings are
// signed with the agent's key (its keyring key, as transactions are).
func openJobData(cfg config.Config, cctx client.Context, provider string) (*jobdata.Store, error) {
	s, err := cfg.JobData.Resolved(cfg.Runner.WorkDir)
	if err != nil {
		return nil, err
	}
	sign := func(msg []byte) ([]byte, []byte, error) {
		sig, pub, err := cctx.Keyring.Sign(cctx.FromName, msg, signing.SignMode_SIGN_MODE_DIRECT)
		if err != nil {
			return nil, nil, err
		}
		return sig, pub.Bytes(), nil
	}
	return jobdata.Open(jobdata.Config{Dir: s.Dir, CacheDir: s.CacheDir, CacheBytes: s.CacheBytes, LeaseInputBytes: s.LeaseInputBytes,
		Retention: s.Retention, AllowPrivateNetworks: s.AllowPrivateNetworks}, jobdata.Identity{ChainID: cctx.ChainID, Provider: provider}, sign)
}

// endpointOptions are what the endpoint serves beside manifests and status:
// the store's outputs, and the ingress's key registration when it runs.
func (d *Daemon) endpointOptions() []endpoint.Option {
	var opts []endpoint.Option
	if d.data != nil {
		opts = append(opts, endpoint.WithOutputs(d.data))
	}
	if d.ing != nil { // renters register their services' keys (ingress_keys.go)
		opts = append(opts, endpoint.WithKeys(d))
	}
	return opts
}

// sweepData deletes outputs past their retention until ctx ends.
func (d *Daemon) sweepData(ctx context.Context) error {
	if d.data == nil {
		return nil
	}
	return d.data.RunSweeper(ctx, d.log)
}
