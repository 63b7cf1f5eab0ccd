package cmd

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/crypto/hd"
	"github.com/cosmos/cosmos-sdk/crypto/keyring"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/chain"
	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/endpoint"
	"github.com/idlegpu/idlegpu/agent/state"
)

func initCmd() *cobra.Command {
	var (
		c             config.Config
		force         bool
		recover       bool
		endpointHosts []string
	)
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write a commented configuration and create (or --recover) the agent's key",
		Long: `Writes <home>/agent.toml with a comment on every setting and creates the agent's
signing key in the keyring (or imports it from a mnemonic read on stdin with --recover).
Then let the provider's operator name the printed address as an agent:

  idlegpud tx provider update-provider <moniker> <region> <endpoint> --agents <address> --from operator`,
		Example: `idlegpu-agent init --chain-id idlegpu-1 --node tcp://node.example.com:26657 --provider idle1...
idlegpu-agent init --keyring-backend test --gpu-backend sim --runner process --unsafe-process-runner   # a local test setup`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, _ := cmd.Flags().GetString(flagHome)
			path := configPath(cmd)
			if _, err := os.Stat(path); err == nil && !force {
				return fmt.Errorf("%s exists; --force overwrites it", path)
			}
			def := config.Default(home)
			merged := def
			merged.Chain.RPC, merged.Chain.ChainID, merged.Chain.GasPrices = c.Chain.RPC, c.Chain.ChainID, c.Chain.GasPrices
			merged.Key.Name, merged.Key.KeyringBackend, merged.Key.Provider = c.Key.Name, c.Key.KeyringBackend, c.Key.Provider
			merged.GPU.Backend, merged.Runner.Backend = c.GPU.Backend, c.Runner.Backend
			merged.Runner.UnsafeProcessRunner = c.Runner.UnsafeProcessRunner
			if merged.Key.Provider != "" {
				if _, err := sdk.AccAddressFromBech32(merged.Key.Provider); err != nil {
					return fmt.Errorf("--provider: %w", err)
				}
			}
			if err := merged.Validate(); err != nil {
				return err
			}
			if err := os.MkdirAll(home, 0o700); err != nil {
				return err
			}
			addr, mnemonic, err := ensureKey(cmd, merged.Key, recover)
			if err != nil {
				return err
			}
			b, err := merged.Marshal()
			if err != nil {
				return err
			}
			if err := state.WriteFileAtomic(path, b, 0o600); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "wrote %s\nagent key %q: %s\n", path, merged.Key.Name, addr)
			if e := merged.Endpoint; e.TLS() {
				pin, err := endpoint.CertPin(e.TLSCert)
				if os.IsNotExist(err) {
					pin, err = endpoint.GenerateSelfSigned(e.TLSCert, e.TLSKey, endpointHosts, time.Now())
				}
				if err != nil {
					return fmt.Errorf("endpoint certificate: %w", err)
				}
				fmt.Fprintf(out, "endpoint certificate %s (for %s)\n  tls_cert_sha256 %s\n", e.TLSCert, strings.Join(endpointHosts, ", "), pin)
			}
			if mnemonic != "" {
				fmt.Fprintf(out, "\nmnemonic (write it down; it is shown once):\n%s\n", mnemonic)
			}
			fmt.Fprintf(out, "\nnext: the operator names the agent:\n  idlegpud tx provider update-provider <moniker> <region> <endpoint> --agents %s --from <operator>\n", addr)
			return nil
		},
	}
	f := cmd.Flags()
	def := config.Default("")
	f.StringVar(&c.Chain.RPC, "node", def.Chain.RPC, "CometBFT RPC address of a node")
	f.StringVar(&c.Chain.ChainID, "chain-id", def.Chain.ChainID, "chain id")
	f.StringVar(&c.Chain.GasPrices, "gas-prices", def.Chain.GasPrices, "gas price")
	f.StringVar(&c.Key.Name, "key-name", def.Key.Name, "key name in the keyring")
	f.StringVar(&c.Key.KeyringBackend, "keyring-backend", def.Key.KeyringBackend, "file, os or test")
	f.StringVar(&c.Key.Provider, "provider", "", "operator address of the provider this agent serves")
	f.StringVar(&c.GPU.Backend, "gpu-backend", def.GPU.Backend, "auto, nvml or sim")
	f.StringVar(&c.Runner.Backend, "runner", def.Runner.Backend, "docker or process")
	f.BoolVar(&c.Runner.UnsafeProcessRunner, "unsafe-process-runner", false, "allow --runner process: renters' commands run on this host without a container (development only)")
	host, _ := os.Hostname()
	f.StringSliceVar(&endpointHosts, "endpoint-host", []string{host, "localhost", "127.0.0.1"}, "names and IPs in the endpoint's self-signed certificate")
	f.BoolVar(&force, "force", false, "overwrite an existing configuration (the key is kept)")
	f.BoolVar(&recover, "recover", false, "import the key from a BIP-39 mnemonic read on stdin")
	return cmd
}

// ensureKey returns the agent key's address, creating it (and returning
// its mnemonic once) or importing it from stdin; an existing key is kept.
func ensureKey(cmd *cobra.Command, k config.Key, recover bool) (sdk.AccAddress, string, error) {
	enc, err := chain.Encoding()
	if err != nil {
		return nil, "", err
	}
	kr, err := keyring.New(sdk.KeyringServiceName(), k.KeyringBackend, k.KeyringDir, cmd.InOrStdin(), enc.Codec)
	if err != nil {
		return nil, "", err
	}
	if rec, err := kr.Key(k.Name); err == nil {
		addr, err := rec.GetAddress()
		return addr, "", err
	}
	algo := hd.Secp256k1
	path := sdk.GetConfig().GetFullBIP44Path()
	if recover {
		line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
		if err != nil && line == "" {
			return nil, "", fmt.Errorf("--recover: reading the mnemonic from stdin: %w", err)
		}
		rec, err := kr.NewAccount(k.Name, strings.TrimSpace(line), "", path, algo)
		if err != nil {
			return nil, "", err
		}
		addr, err := rec.GetAddress()
		return addr, "", err
	}
	rec, mnemonic, err := kr.NewMnemonic(k.Name, keyring.English, path, "", algo)
	if err != nil {
		return nil, "", err
	}
	addr, err := rec.GetAddress()
	return addr, mnemonic, err
}
