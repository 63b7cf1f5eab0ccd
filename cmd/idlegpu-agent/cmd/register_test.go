package cmd_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/stretchr/testify/suite"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cosmos/cosmos-sdk/crypto/keyring"
	"github.com/cosmos/cosmos-sdk/testutil/network"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// gasPrice is both the node's minimum and the price the agents pay.
const gasPrice = apptesting.GasPrice

// networkConfig is a one-validator in-process network of the real idlegpu
// app with one-second blocks; the validator funds the operators' stake. It
// is a development chain (x/provider allow_simulated_gpus): the agents'
// GPUs are simulated.
func networkConfig(t *testing.T) network.Config {
	cfg := apptesting.NetworkConfig(t, "idlegpu-agent-cmd-test", 1)
	cfg.StakingTokens = sdk.TokensFromConsensusPower(100_000, sdk.DefaultPowerReduction)
	var gen providertypes.GenesisState
	require.NoError(t, cfg.Codec.UnmarshalJSON(cfg.GenesisState[providertypes.ModuleName], &gen))
	gen.Params.AllowSimulatedGpus = true
	raw, err := cfg.Codec.MarshalJSON(&gen)
	require.NoError(t, err)
	cfg.GenesisState[providertypes.ModuleName] = raw
	return cfg
}

// RegisterSuite runs every `register` test against one network (starting
// one costs seconds); each test uses its own keys and simulated GPUs.
type RegisterSuite struct {
	suite.Suite
	net    *network.Network
	val    *network.Validator
	funder *chainclient.Client // the validator's key, funded at genesis
	query  providertypes.QueryClient
}

func TestRegisterSuite(t *testing.T) { suite.Run(t, new(RegisterSuite)) }

func (s *RegisterSuite) SetupSuite() {
	net, err := network.New(s.T(), s.T().TempDir(), networkConfig(s.T()))
	s.Require().NoError(err)
	s.net, s.val = net, net.Validators[0]
	_, err = net.WaitForHeight(2)
	s.Require().NoError(err)
	s.funder = s.client(s.val.ClientCtx.KeyringDir, s.val.Moniker)
	s.query = providertypes.NewQueryClient(s.funder.Context())
}

func (s *RegisterSuite) TearDownSuite() {
	if s.funder != nil {
		s.Require().NoError(s.funder.Close())
	}
	if s.net != nil {
		s.net.Cleanup()
	}
}

func (s *RegisterSuite) client(keyringDir, key string) *chainclient.Client {
	c, err := chainclient.New(chainclient.Config{
		RPC: s.val.RPCAddress, ChainID: s.net.Config.ChainID, KeyringDir: keyringDir, KeyringBackend: keyring.BackendTest,
		KeyName: key, GasPrices: gasPrice, TxTimeout: 15 * time.Second,
	})
	s.Require().NoError(err)
	return c
}

// agentHome inits an agent home on the network whose key acts for provider
// ("": the key is the operator) and sees two simulated GPUs of seed.
func (s *RegisterSuite) agentHome(provider string, seed int64) (string, sdk.AccAddress) {
	home := s.T().TempDir()
	args := []string{"init", "--home", home, "--keyring-backend", "test", "--gpu-backend", "sim", "--runner", "process", "--unsafe-process-runner",
		"--node", s.val.RPCAddress, "--chain-id", s.net.Config.ChainID, "--gas-prices", gasPrice}
	if provider != "" {
		args = append(args, "--provider", provider)
	}
	out, err := run(s.T(), "", args...)
	s.Require().NoError(err)
	_, rest, ok := strings.Cut(out, `agent key "agent": `)
	s.Require().True(ok, out)
	addr, err := sdk.AccAddressFromBech32(strings.Fields(rest)[0])
	s.Require().NoError(err)

	path := filepath.Join(home, "agent.toml")
	c, err := config.Load(path)
	s.Require().NoError(err)
	c.GPU.SimCount, c.GPU.SimSeed = 2, seed
	b, err := c.Marshal()
	s.Require().NoError(err)
	s.Require().NoError(os.WriteFile(path, b, 0o600))
	return home, addr
}

// fund sends each address 1000 GPU from the validator, in one tx.
func (s *RegisterSuite) fund(addrs ...sdk.AccAddress) {
	var msgs []sdk.Msg
	for _, a := range addrs {
		msgs = append(msgs, banktypes.NewMsgSend(s.funder.Address(), a, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 1_000_000_000))))
	}
	_, err := s.funder.Submit(context.Background(), msgs...)
	s.Require().NoError(err)
}

func (s *RegisterSuite) sequence(addr sdk.AccAddress) uint64 {
	_, seq, err := authtypes.AccountRetriever{}.GetAccountNumberSequence(s.funder.Context(), addr)
	s.Require().NoError(err)
	return seq
}

func (s *RegisterSuite) provider(addr sdk.AccAddress) providertypes.Provider {
	res, err := s.query.Provider(context.Background(), &providertypes.QueryProviderRequest{Operator: addr.String()})
	s.Require().NoError(err)
	return res.Provider
}

// simUUIDs are the UUIDs of the two simulated GPUs of seed.
func (s *RegisterSuite) simUUIDs(seed int64) []string {
	b, err := gpu.NewSim(gpu.SimConfig{Count: 2, Seed: seed})
	s.Require().NoError(err)
	devs, err := b.Devices(context.Background())
	s.Require().NoError(err)
	return []string{devs[0].UUID, devs[1].UUID}
}

// wantGPUs is what register sends for the simulated GPUs of seed.
func (s *RegisterSuite) wantGPUs(seed int64) []providertypes.GPUInfo {
	var infos []providertypes.GPUInfo
	for i, uuid := range s.simUUIDs(seed) {
		infos = append(infos, providertypes.GPUInfo{Uuid: uuid, Model: "NVIDIA H100 80GB HBM3", MemoryMib: 81559,
			PciBusId: []string{"00000000:01:00.0", "00000000:02:00.0"}[i], DriverVersion: "550.54.15", VbiosVersion: "96.00.89.00.01",
			Simulated: true})
	}
	return infos
}

// chainGPUs is the provider's GPUs as the chain has them.
func (s *RegisterSuite) chainGPUs(addr sdk.AccAddress) []providertypes.GPUInfo {
	res, err := s.query.ProviderGPUs(context.Background(), &providertypes.QueryProviderGPUsRequest{Provider: addr.String()})
	s.Require().NoError(err)
	var infos []providertypes.GPUInfo
	for _, g := range res.Gpus {
		s.Require().Equal(addr.String(), g.Provider)
		s.Require().Equal(g.Info().Fingerprint(), g.Fingerprint)
		info := g.Info() // the inventory fields; simulated is kept beside them
		info.Simulated = g.Simulated
		infos = append(infos, info)
	}
	return infos
}

// TestOperatorRegistersOnce: a fresh operator key registers the provider,
// bonds and registers both GPUs in one tx; a second run sends nothing; a
// higher --bond (in display units) bonds only the difference.
func (s *RegisterSuite) TestOperatorRegistersOnce() {
	home, op := s.agentHome("", 11)
	s.fund(op)
	pin := strings.Repeat("ab", 32)
	args := []string{"register", "--home", home, "--moniker", "rack-1", "--region", "eu-de-fra1",
		"--endpoint", "https://gpu.example.com:9180", "--tls-cert-sha256", pin, "--bond", "250000000ugpu"}
	out, errOut, err := runAll(s.T(), "", args...)
	s.Require().NoError(err, errOut)
	s.Require().Contains(out, "registered provider "+op.String()+"\nbonded 250000000ugpu\nregistered 2 GPUs\ntx ")
	s.Require().NotContains(errOut, "WARNING")
	s.Require().Equal(uint64(1), s.sequence(op), "one tx carried all three messages")

	p := s.provider(op)
	s.Require().Equal("rack-1", p.Moniker)
	s.Require().Equal("eu-de-fra1", p.Region)
	s.Require().Equal("https://gpu.example.com:9180", p.Endpoint)
	s.Require().Equal(pin, p.TlsCertSha256)
	s.Require().Equal(sdk.NewInt64Coin(chaincfg.BondDenom, 250_000_000), p.Stake)
	s.Require().Equal(providertypes.PROVIDER_STATUS_ACTIVE, p.Status)
	s.Require().EqualValues(2, p.GpuCount)
	s.Require().ElementsMatch(s.wantGPUs(11), s.chainGPUs(op))

	again, err := run(s.T(), "", args...)
	s.Require().NoError(err)
	s.Require().Contains(again, "already registered, nothing to do")
	s.Require().Contains(again, "status ACTIVE, stake 250000000ugpu, 2 GPUs registered")
	s.Require().Equal(uint64(1), s.sequence(op), "nothing sent")

	more, err := run(s.T(), "", "register", "--home", home, "--bond", "300 GPU")
	s.Require().NoError(err)
	s.Require().Contains(more, "bonded 50000000ugpu\ntx ")
	s.Require().NotContains(more, "registered provider")
	s.Require().Equal(sdk.NewInt64Coin(chaincfg.BondDenom, 300_000_000), s.provider(op).Stake)

	// The same GPUs seen by another operator's agent belong to op.
	other, _ := s.agentHome("", 11)
	_, err = run(s.T(), "", "register", "--home", other, "--region", "eu-de", "--endpoint", "http://127.0.0.1:9180", "--dry-run")
	s.Require().ErrorContains(err, "GPU "+s.simUUIDs(11)[0]+" is registered to another provider, "+op.String())
}

// TestDryRunSendsNothing: --dry-run prints the messages register would
// send, in the app codec's JSON, and warns that there is no stake.
func (s *RegisterSuite) TestDryRunSendsNothing() {
	home, op := s.agentHome("", 12)
	out, errOut, err := runAll(s.T(), "", "register", "--home", home, "--region", "eu-de", "--endpoint", "http://127.0.0.1:9180", "--dry-run")
	s.Require().NoError(err, errOut)
	s.Require().Contains(errOut, "WARNING: provider "+op.String()+" will have 0ugpu bonded, but its 2 GPUs need 200000000ugpu")
	s.Require().Contains(errOut, "offers will be refused until it is bonded: idlegpu-agent register --bond 200000000ugpu")

	enc, err := chainclient.Encoding()
	s.Require().NoError(err)
	var body struct{ Messages []json.RawMessage }
	s.Require().NoError(json.Unmarshal([]byte(out), &body))
	s.Require().Len(body.Messages, 2)
	var msgs []sdk.Msg
	for _, raw := range body.Messages {
		var m sdk.Msg
		s.Require().NoError(enc.Codec.UnmarshalInterfaceJSON(raw, &m))
		msgs = append(msgs, m)
	}
	host, err := os.Hostname()
	s.Require().NoError(err)
	s.Require().Equal(&providertypes.MsgRegisterProvider{Operator: op.String(), Moniker: host, Region: "eu-de", Endpoint: "http://127.0.0.1:9180"}, msgs[0])
	s.Require().Equal(&providertypes.MsgRegisterGPUs{Signer: op.String(), Provider: op.String(), Gpus: s.wantGPUs(12)}, msgs[1])

	_, err = s.query.Provider(context.Background(), &providertypes.QueryProviderRequest{Operator: op.String()})
	s.Require().Equal(codes.NotFound, status.Code(err), "nothing was sent")
	_, err = s.query.GPU(context.Background(), &providertypes.QueryGPURequest{Uuid: s.simUUIDs(12)[0]})
	s.Require().Equal(codes.NotFound, status.Code(err))
}

// TestNotOperatorOfUnregisteredProvider: an agent key cannot register a
// provider for its operator.
func (s *RegisterSuite) TestNotOperatorOfUnregisteredProvider() {
	unregistered := sdk.AccAddress(bytes.Repeat([]byte{7}, 20)).String()
	home, agent := s.agentHome(unregistered, 13)
	_, err := run(s.T(), "", "register", "--home", home, "--region", "eu-de", "--endpoint", "http://127.0.0.1:9180")
	s.Require().ErrorContains(err, "provider "+unregistered+" is not registered, and the agent key "+agent.String()+" is not its operator")
}

// TestAgentRegistersItsGPUs: an agent named by the operator registers its
// machine's GPUs for the provider; it may not bond, and a key the operator
// did not name may not register.
func (s *RegisterSuite) TestAgentRegistersItsGPUs() {
	opHome, op := s.agentHome("", 14)
	agentHome, agent := s.agentHome(op.String(), 15)
	strangerHome, stranger := s.agentHome(op.String(), 16)
	s.fund(op, agent)
	opClient := s.client(opHome, "agent")
	defer opClient.Close()
	_, err := opClient.Submit(context.Background(),
		&providertypes.MsgRegisterProvider{Operator: op.String(), Moniker: "op", Region: "eu-de", Endpoint: "http://127.0.0.1:9180", Agents: []string{agent.String()}},
		&providertypes.MsgBond{Operator: op.String(), Amount: sdk.NewInt64Coin(chaincfg.BondDenom, 200_000_000)})
	s.Require().NoError(err)

	_, err = run(s.T(), "", "register", "--home", agentHome, "--bond", "300000000ugpu")
	s.Require().ErrorContains(err, "only its operator can bond more (idlegpud tx provider bond 100000000ugpu --from "+op.String()+")")

	out, errOut, err := runAll(s.T(), "", "register", "--home", agentHome)
	s.Require().NoError(err, errOut)
	s.Require().Contains(out, "registered 2 GPUs\ntx ")
	s.Require().NotContains(out, "registered provider")
	s.Require().NotContains(errOut, "WARNING")
	s.Require().Equal(uint64(1), s.sequence(agent))
	s.Require().ElementsMatch(s.wantGPUs(15), s.chainGPUs(op))

	_, err = run(s.T(), "", "register", "--home", strangerHome)
	s.Require().ErrorContains(err, "the agent key "+stranger.String()+" is neither the operator of provider "+op.String()+" nor one of its agents")
}

// TestStatusNamesTheBackend: status says which GPU backend this machine's
// configuration resolves to.
func (s *RegisterSuite) TestStatusNamesTheBackend() {
	home, op := s.agentHome("", 17)
	out, err := run(s.T(), "", "status", "--home", home, "--json")
	s.Require().NoError(err)
	var rep struct {
		Provider   string `json:"provider"`
		GPUBackend string `json:"gpu_backend"`
		GPUError   string `json:"gpu_error"`
	}
	s.Require().NoError(json.Unmarshal([]byte(out), &rep))
	s.Require().Equal(op.String(), rep.Provider)
	s.Require().Equal("sim", rep.GPUBackend)
	s.Require().Empty(rep.GPUError)
	text, err := run(s.T(), "", "status", "--home", home)
	s.Require().NoError(err)
	s.Require().Contains(text, "\ngpus         backend sim (SIMULATED GPUs: for tests and demos; register accepts them on development chains only)\n")
}

// TestRunRefusesAPriceInAnUnknownDenom: run reads prices through the
// chain's denom metadata and names the line of one it cannot ask.
func (s *RegisterSuite) TestRunRefusesAPriceInAnUnknownDenom() {
	home, _ := s.agentHome("", 18)
	path := filepath.Join(home, "agent.toml")
	b, err := os.ReadFile(path)
	s.Require().NoError(err)
	text := strings.Replace(string(b), "on_demand = '2000000uusdc'", "on_demand = '2 USD'", 1)
	s.Require().NoError(os.WriteFile(path, []byte(text), 0o600))
	line := 1 + strings.Count(text[:strings.Index(text, "on_demand = '2 USD'")], "\n")
	_, err = run(s.T(), "", "run", "--home", home)
	s.Require().EqualError(err, fmt.Sprintf(`%s:%d: policy.prices[0].on_demand = "2 USD": USD is not a currency of this chain (its currencies: ugpu or gpu, uusdc or usdc)`, path, line))
}

// TestDoctor: on a registered provider whose endpoint serves the pinned
// certificate every check passes (the sim backend warns); with the
// endpoint down doctor fails and exits non-zero.
func (s *RegisterSuite) TestDoctor() {
	home, op := s.agentHome("", 19)
	s.fund(op)
	cert, err := tls.LoadX509KeyPair(filepath.Join(home, "endpoint.crt"), filepath.Join(home, "endpoint.key"))
	s.Require().NoError(err)
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	_, errOut, err := runAll(s.T(), "", "register", "--home", home, "--region", "eu-de", "--endpoint", srv.URL, "--bond", "200000000ugpu")
	s.Require().NoError(err, errOut)

	out, err := run(s.T(), "", "doctor", "--home", home, "--provider", op.String())
	s.Require().NoError(err, out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	s.Require().Len(lines, 8, out)
	s.Require().Equal("warn  gpu backend        sim: 2 SIMULATED GPUs (tests and demos only)", lines[0])
	s.Require().Equal("ok    xid errors         none pending", lines[1])
	s.Require().Equal("ok    audits             sim: answered with the CPU reference", lines[2])
	s.Require().Equal("ok    container runtime  runner process: none needed", lines[3])
	s.Require().True(strings.HasPrefix(lines[4], "ok    clock              "), lines[4])
	s.Require().Equal("ok    endpoint           "+srv.URL+" reachable, certificate matches the pin", lines[5])
	s.Require().Equal("ok    gpu reads          sim: 2 GPUs read", lines[6])
	s.Require().True(strings.HasPrefix(lines[7], "ok    disk               "+filepath.Join(home, "state")+" "), lines[7])
	s.Require().Contains(lines[7], ", "+filepath.Join(home, "jobs")+" ")

	srv.Close()
	out, err = run(s.T(), "", "doctor", "--home", home, "--provider", op.String())
	s.Require().EqualError(err, "doctor: some checks FAILED")
	s.Require().Contains(out, "\nFAIL  endpoint           "+srv.URL+" unreachable: ")
}
