package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/gateway"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{Use: "idlegpu-gateway", Short: "One stable address for a deployment served on several idlegpu leases", SilenceUsage: true}
	root.AddCommand(newServeCmd())
	return root
}

func newServeCmd() *cobra.Command {
	var configPath, statusListen string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the deployments of a gateway.toml",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := gateway.LoadFile(configPath)
			if err != nil {
				return err
			}
			cfg, err := f.Config(cmd.Context())
			if err != nil {
				return err
			}
			g, err := gateway.New(cfg)
			if err != nil {
				return err
			}
			return serve(cmd.Context(), f, g, statusListen)
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "gateway.toml", "the configuration file")
	cmd.Flags().StringVar(&statusListen, "status-listen", "127.0.0.1:9480", "where /healthz and /status (each upstream's health and latency, JSON) are served; empty: nowhere")
	return cmd
}

// serve runs the gateway until ctx ends.
func serve(ctx context.Context, f gateway.File, g *gateway.Gateway, statusListen string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go g.Run(ctx)
	ln, err := net.Listen("tcp", f.Listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 2)
	go func() {
		if f.TLSCert != "" {
			errc <- srv.ServeTLS(ln, f.TLSCert, f.TLSKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	var status *http.Server
	if statusListen != "" {
		sl, err := net.Listen("tcp", statusListen)
		if err != nil {
			return err
		}
		status = &http.Server{Handler: g.StatusHandler(f.Region), ReadHeaderTimeout: 10 * time.Second}
		go func() { errc <- status.Serve(sl) }()
	}
	slog.Info("gateway serving", "listen", ln.Addr().String(), "tls", f.TLSCert != "", "region", f.Region, "deployments", len(f.Deployments))
	fmt.Printf("idlegpu-gateway: %s\n", ln.Addr())
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	_ = srv.Shutdown(sctx)
	if status != nil {
		_ = status.Shutdown(sctx)
	}
	return nil
}
