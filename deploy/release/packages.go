package main

// program is one of the packages: a binary, its systemd unit, the
// system user it runs as and the directories the maintainer scripts make.
type program struct {
	// Name is the package, binary, unit, user and group name.
	Name string
	// Summary is the package's one-line description.
	Summary string
	// Description follows the summary in the package's long description.
	Description string
	// Passphrase: the program unlocks a file keyring, whose passphrase the
	// package generates in /etc/<name>/keyring-passphrase.
	Passphrase bool
	// ExtraGroups are groups the unit names in SupplementaryGroups; the
	// package creates any that do not exist and adds the user to them.
	ExtraGroups []string
	// Recommends are packages the program works better with (deb only: rpm
	// distributions name Docker differently).
	Recommends []string
}

// programs are the packages a release builds, in the order they are built.
var programs = []program{
	{
		Name:    "idlegpud",
		Summary: "idlegpu node: the GPU-rental chain (CometBFT, Cosmos SDK) and its CLI",
		Description: "Runs an idlegpu validator, sentry or RPC node as the idlegpud service\n" +
			"(home /var/lib/idlegpud), and is the chain's command-line client.",
	},
	{
		Name:    "idlegpu-agent",
		Summary: "idlegpu provider agent: offers GPUs, runs leased jobs, proves their use",
		Description: "Runs the provider agent as the idlegpu-agent service (home\n" +
			"/var/lib/idlegpu-agent): NVML telemetry, Docker jobs, proofs to the chain.",
		Passphrase:  true,
		ExtraGroups: []string{"docker"},
		Recommends:  []string{"docker.io | docker-ce"},
	},
	{
		Name:    "idlegpu-web",
		Summary: "idlegpu web app: the market in a browser, a chain indexer and a relayer",
		Description: "Serves the idlegpu web app as the idlegpu-web service (home\n" +
			"/var/lib/idlegpu-web, the index database and the relayer's keyring).",
		Passphrase: true,
	},
	{
		Name:    "idlegpu-bridge",
		Summary: "idlegpu bridge: a validator's orchestrator between the chain and its EVM vault",
		Description: "Runs `idlegpu-bridge orchestrate` as the idlegpu-bridge service (home\n" +
			"/var/lib/idlegpu-bridge, the orchestrator's keyring and EVM key).",
		Passphrase: true,
	},
	{
		Name:    "idlegpu-gateway",
		Summary: "idlegpu gateway: one address for a model served on several leases",
		Description: "Runs `idlegpu-gateway serve` as the idlegpu-gateway service: each\n" +
			"deployment's requests go to its leases' ingresses by latency and health.",
	},
}

// stateDir is the program's home: state, keys, and its user's home.
func (p program) stateDir() string { return "/var/lib/" + p.Name }

// confDir holds the unit's environment file and the keyring passphrase.
func (p program) confDir() string { return "/etc/" + p.Name }

// passphraseFile is where the package keeps the keyring passphrase, or "".
func (p program) passphraseFile() string {
	if !p.Passphrase {
		return ""
	}
	return p.confDir() + "/keyring-passphrase"
}
