package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// probeCommand is `lab probe`: the container healthcheck of every lblab
// process. The runtime image has no shell and no curl, so compose and
// Docker run `lab probe 127.0.0.1:9100` inside the container instead.
func probeCommand() *cobra.Command {
	var path string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "probe HOST:PORT",
		Short: "Check that a process's admin listener answers GET /healthz (container healthchecks)",
		Long: `probe sends GET /healthz (or --path) to HOST:PORT, the admin listener of a
backend, lb or loadgen, or a lab controller (lab up, lab dashboard), and exits 0
if it answers 200 within --timeout, else 1 saying what it got. It is the
healthcheck of the compose lab's services (deploy/compose.yaml): the runtime
image has no shell or curl.`,
		Example: `  lab probe 127.0.0.1:9100
  lab probe --path /api/snapshot --timeout 5s 127.0.0.1:8000`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{fmt.Errorf("probe takes one HOST:PORT, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, port, err := net.SplitHostPort(args[0]); err != nil || port == "" {
				return usageError{fmt.Errorf("probe %q: want HOST:PORT", args[0])}
			}
			if !strings.HasPrefix(path, "/") {
				return usageError{fmt.Errorf("--path %q: want a path starting with /", path)}
			}
			if timeout <= 0 {
				return usageError{fmt.Errorf("--timeout %v: want a positive duration", timeout)}
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			status, err := probe(ctx, "http://"+args[0]+path)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s%s: %s\n", args[0], path, status)
			return nil
		},
	}
	cmd.Flags().StringVar(&path, "path", "/healthz", "the path to GET")
	cmd.Flags().DurationVar(&timeout, "timeout", 2*time.Second, "how long to wait for the answer")
	return cmd
}

// probe GETs url; anything but a 200 is an error naming what came back.
func probe(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", usageError{err}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err // names the method and URL
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return resp.Status, nil
}
