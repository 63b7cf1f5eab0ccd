package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	sdkmath "cosmossdk.io/math"

	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/indexer"
	"github.com/idlegpu/idlegpu/web"
)

const (
	flagHome           = "home"
	flagListen         = "listen"
	flagNode           = "node"
	flagGRPC           = "grpc"
	flagChainID        = "chain-id"
	flagDB             = "db"
	flagRelayerKey     = "relayer-key"
	flagKeyringDir     = "keyring-dir"
	flagKeyringBackend = "keyring-backend"
	flagGasPrices      = "gas-prices"
	flagRelayerFee     = "relayer-fee"
	flagLogLevel       = "log-level"
	flagMaxLag         = "max-lag"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "idlegpu-web",
		Short:         "The idlegpu web app: market, jobs, providers and network in a browser, with a relayer for wallet-signed jobs",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(serveCmd(), indexCmd())
	return root
}

func defaultHome() string {
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".idlegpu-web")
	}
	return ".idlegpu-web"
}

func addCommonFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.String(flagHome, defaultHome(), "directory of the app's database (index.db) unless --db says otherwise")
	f.String(flagDB, "", "the index: an SQLite file (default <home>/index.db), or a PostgreSQL URL postgres://user@host:5432/db (a password is better in $"+envDB+" or ~/.pgpass than on the command line)")
	f.String(flagNode, "tcp://127.0.0.1:26657", "CometBFT RPC of an idlegpu node: blocks are indexed from it")
	f.String(flagLogLevel, "info", "debug, info, warn or error")
}

func logger(cmd *cobra.Command) *slog.Logger {
	lvl, _ := cmd.Flags().GetString(flagLogLevel)
	var l slog.Level
	if err := l.UnmarshalText([]byte(lvl)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// envDB names the index database when --db is not given: a PostgreSQL URL
// with a password stays out of the process list.
const envDB = "IDLEGPU_WEB_DB"

// openDB opens (and migrates) the index database the flags name. It
// returns the database's name for logs, without any password.
func openDB(cmd *cobra.Command) (*indexer.DB, string, error) {
	f := cmd.Flags()
	path, _ := f.GetString(flagDB)
	if path == "" {
		path = os.Getenv(envDB)
	}
	if indexer.IsPostgres(path) {
		u, err := url.Parse(path)
		if err != nil {
			return nil, "", fmt.Errorf("--%s: not a valid PostgreSQL URL", flagDB) // the URL may hold a password: not echoed
		}
		db, err := indexer.Open(path)
		return db, u.Redacted(), err
	}
	if path == "" {
		home, _ := f.GetString(flagHome)
		if err := os.MkdirAll(home, 0o700); err != nil {
			return nil, "", err
		}
		path = filepath.Join(home, "index.db")
	}
	db, err := indexer.Open(path)
	return db, path, err
}

func serveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Index the chain and serve the web app",
		Long: `Index the chain from --node into the database and serve the app on --listen.
Current state is read from the node's gRPC (--grpc). With --relayer-key the app
submits wallet-signed bids, cancels and closes with that key (it pays the gas)
and asks --relayer-fee of each, never more than the signer allowed.`,
		Example: `idlegpu-web serve --node tcp://127.0.0.1:26657 --grpc 127.0.0.1:9090 --chain-id idlegpu-local \
  --relayer-key relayer --keyring-dir ~/.idlegpud --keyring-backend test --relayer-fee 50000`,
		Args: cobra.NoArgs,
		RunE: runServe,
	}
	addCommonFlags(cmd)
	f := cmd.Flags()
	f.String(flagListen, "127.0.0.1:8080", "address to serve the app on")
	f.String(flagGRPC, "127.0.0.1:9090", "gRPC address of the same node")
	f.String(flagChainID, "", "the chain id bids are signed for")
	f.String(flagRelayerKey, "", "name of the relayer's key in the keyring (none: relaying off)")
	f.String(flagKeyringDir, "", "keyring directory of the relayer key")
	f.String(flagKeyringBackend, "file", "file, os or test")
	f.String(flagGasPrices, "0.0025ugpu", "gas price the relayer pays")
	f.String(flagRelayerFee, "0", "fee asked per relayed message, base units of the job's price denom")
	f.Duration(flagMaxLag, web.DefaultMaxLag, "how old the node's newest block, and the index behind it, may be before every page says so and /healthz answers 503")
	_ = cmd.MarkFlagRequired(flagChainID)
	return cmd
}

func runServe(cmd *cobra.Command, _ []string) error {
	ctx := cmd.Context()
	log := logger(cmd)
	f := cmd.Flags()
	node, _ := f.GetString(flagNode)
	grpcAddr, _ := f.GetString(flagGRPC)
	chainID, _ := f.GetString(flagChainID)
	listen, _ := f.GetString(flagListen)
	maxLag, _ := f.GetDuration(flagMaxLag)
	if maxLag <= 0 {
		return fmt.Errorf("--%s %s: want a positive duration", flagMaxLag, maxLag)
	}
	feeStr, _ := f.GetString(flagRelayerFee)
	fee, ok := sdkmath.NewIntFromString(feeStr)
	if !ok || fee.IsNegative() {
		return fmt.Errorf("--%s %q: want a whole number of base units", flagRelayerFee, feeStr)
	}

	db, path, err := openDB(cmd)
	if err != nil {
		return err
	}
	defer db.Close()
	ix, err := indexer.New(db, node, log.With("part", "indexer"))
	if err != nil {
		return err
	}
	conn, err := web.DialNode(grpcAddr)
	if err != nil {
		return err
	}
	defer conn.Close()

	var relayer *chainclient.Client
	if key, _ := f.GetString(flagRelayerKey); key != "" {
		dir, _ := f.GetString(flagKeyringDir)
		backend, _ := f.GetString(flagKeyringBackend)
		prices, _ := f.GetString(flagGasPrices)
		if relayer, err = chainclient.New(chainclient.Config{
			RPC: node, ChainID: chainID, KeyringDir: dir, KeyringBackend: backend, KeyName: key,
			GasPrices: prices, KeyringInput: cmd.InOrStdin(), Logger: log.With("part", "relayer"),
		}); err != nil {
			return fmt.Errorf("relayer: %w", err)
		}
		defer relayer.Close()
	}

	// The node may still be starting: wait for its gRPC before serving.
	var srv *web.Server
	for {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		srv, err = web.New(cctx, web.Config{ChainID: chainID, RelayerFee: fee, MaxLag: maxLag, Log: log.With("part", "web")}, conn, db, relayer)
		cancel()
		if err == nil {
			break
		}
		log.Warn("waiting for the node's gRPC", "grpc", grpcAddr, "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}

	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 2)
	go func() { errc <- ix.Run(ctx) }()
	go func() { errc <- hs.Serve(ln) }()
	relaying := "off"
	if relayer != nil {
		relaying = relayer.Address().String()
	}
	log.Info("serving", "url", "http://"+ln.Addr().String(), "db", path, "node", node, "grpc", grpcAddr, "relayer", relaying)
	fmt.Fprintf(cmd.OutOrStdout(), "idlegpu-web: http://%s\n", ln.Addr())

	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	if err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func indexCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Index the chain into the database without serving (catch up, then follow)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, _, err := openDB(cmd)
			if err != nil {
				return err
			}
			defer db.Close()
			node, _ := cmd.Flags().GetString(flagNode)
			ix, err := indexer.New(db, node, logger(cmd).With("part", "indexer"))
			if err != nil {
				return err
			}
			if err := ix.Run(cmd.Context()); err != nil && !errors.Is(err, context.Canceled) {
				return err
			}
			return nil
		},
	}
	addCommonFlags(cmd)
	return cmd
}
