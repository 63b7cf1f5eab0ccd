package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/crypto/hd"
	"github.com/cosmos/cosmos-sdk/crypto/keyring"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/state"
	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/endpoint"
)

func initCmd() *cobra.Command {
	var (
		c             config.Config
		force         bool
		recover       bool
		mnemonicFile  string
		endpointHosts []string
		gpusFlag      int
	)
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write a commented configuration and create (or --recover) the agent's key",
		Long: `Writes <home>/agent.toml with a comment on every setting and creates the agent's
signing key in the keyring (or imports it from a mnemonic with --recover).

Without a terminal, stdin is read in this order: with --recover the mnemonic
(unless --mnemonic-file), then the file keyring's passphrase (unless
--keyring-passphrase-file or IDLEGPU_KEYRING_PASSPHRASE gives it). A
passphrase file given to init is recorded as key.passphrase_file.
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
			// Jobs are bounded from the first run: the machine's cores,
			// memory (less the host's reserve) and disk, per GPU.
			gpuCount, counted := initGPUCount(merged.GPU, gpusFlag)
			share, err := machineShare(merged.Runner.WorkDir, gpuCount)
			if err != nil {
				return fmt.Errorf("job limits: %w", err)
			}
			applyShare(&merged.Runner, share)
			if pf, _ := cmd.Flags().GetString(flagPassphraseFile); pf != "" {
				abs, err := filepath.Abs(pf)
				if err != nil {
					return err
				}
				merged.Key.PassphraseFile = abs
			}
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
			addr, mnemonic, err := ensureKey(cmd, merged.Key, recover, mnemonicFile)
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
			printShare(out, merged.Runner, gpuCount, counted)
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
			printNextSteps(out, merged, addr)
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
	f.IntVar(&gpusFlag, "gpus", 0, "GPUs the machine's CPU, memory and disk are divided among for the job limits (0: those the GPU backend finds)")
	f.BoolVar(&force, "force", false, "overwrite an existing configuration (the key is kept)")
	f.BoolVar(&recover, "recover", false, "import the key from a BIP-39 mnemonic: stdin's first line, or --mnemonic-file")
	f.StringVar(&mnemonicFile, "mnemonic-file", "", "with --recover: a file whose first line is the mnemonic")
	return cmd
}

// printNextSteps says what a provider does after init: fund the key, open
// the endpoint's port, register (or be named by the operator), run.
func printNextSteps(out io.Writer, c config.Config, addr sdk.AccAddress) {
	_, port, _ := net.SplitHostPort(c.Endpoint.Listen)
	fmt.Fprintf(out, "\nnext:\n")
	if c.Key.Provider == "" {
		fmt.Fprintf(out, "  1. fund the agent key %s: the stake to bond (register --dry-run says how much) and fees, e.g. idlegpud tx bank send <funded key> %s <amount>ugpu\n", addr, addr)
	} else {
		fmt.Fprintf(out, "  1. fund the agent key %s with fees, e.g. idlegpud tx bank send <funded key> %s <amount>ugpu\n", addr, addr)
	}
	fmt.Fprintf(out, "  2. open TCP port %s (endpoint.listen %s) to renters: the endpoint must be reachable at the URL you register\n", port, c.Endpoint.Listen)
	if c.Key.Provider == "" {
		fmt.Fprintf(out, "  3. idlegpu-agent register --region <continent-country-site> --endpoint https://<this host>:%s --bond <stake>ugpu\n", port)
	} else {
		fmt.Fprintf(out, "  3. the operator names this agent: idlegpud tx provider update-provider <moniker> <region> <endpoint> --agents %s --from %s\n", addr, c.Key.Provider)
		fmt.Fprintf(out, "     then: idlegpu-agent register (it registers this machine's GPUs)\n")
	}
	fmt.Fprintf(out, "  4. idlegpu-agent doctor, then idlegpu-agent run (or the systemd unit or the container: docs/providers.md)\n")
}

// ensureKey returns the agent key's address, creating it (and returning
// its mnemonic once) or importing it; an existing key is kept. With
// --recover the mnemonic is read before the passphrase, from one buffered
// stdin, so piping both lines works.
func ensureKey(cmd *cobra.Command, k config.Key, recover bool, mnemonicFile string) (sdk.AccAddress, string, error) {
	enc, err := chainclient.Encoding()
	if err != nil {
		return nil, "", err
	}
	stdin := bufio.NewReader(cmd.InOrStdin())
	var mnemonic string
	if recover {
		if mnemonicFile != "" {
			b, err := os.ReadFile(mnemonicFile)
			if err != nil {
				return nil, "", fmt.Errorf("--mnemonic-file: %w", err)
			}
			mnemonic, _, _ = strings.Cut(string(b), "\n")
		} else {
			mnemonic, _ = stdin.ReadString('\n')
		}
		if mnemonic = strings.TrimSpace(mnemonic); mnemonic == "" {
			return nil, "", errors.New("--recover: no mnemonic: give it as the first line on stdin or with --mnemonic-file")
		}
	}
	src, err := keyringInput(cmd, k, stdin)
	if err != nil {
		return nil, "", err
	}
	kr, err := keyring.New(sdk.KeyringServiceName(), k.KeyringBackend, k.KeyringDir, src.input, enc.Codec)
	if err != nil {
		return nil, "", err
	}
	if rec, err := kr.Key(k.Name); err == nil {
		addr, err := rec.GetAddress()
		return addr, "", err
	} else if !errors.Is(err, sdkerrors.ErrKeyNotFound) {
		return nil, "", src.unlockError(err, k.KeyringDir)
	}
	algo := hd.Secp256k1
	path := sdk.GetConfig().GetFullBIP44Path()
	if recover {
		rec, err := kr.NewAccount(k.Name, mnemonic, "", path, algo)
		if err != nil {
			return nil, "", src.unlockError(err, k.KeyringDir)
		}
		addr, err := rec.GetAddress()
		return addr, "", err
	}
	rec, mnemonic, err := kr.NewMnemonic(k.Name, keyring.English, path, "", algo)
	if err != nil {
		return nil, "", src.unlockError(err, k.KeyringDir)
	}
	addr, err := rec.GetAddress()
	return addr, mnemonic, err
}
