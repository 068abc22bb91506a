package lab

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/conns"
	"github.com/lblab/lblab/internal/shell/state"
)

// tlsFiles are the self-signed certificate and key a fleet makes at start
// when its lab sets network.tls: the backends and the balancers serve it on
// their data listeners, and the balancers and the loadgen trust it.
type tlsFiles struct{ cert, key string }

// makeCert writes the fleet's certificate into its directory, when the lab
// asks for TLS.
func (f *fleet) makeCert() error {
	if !f.lab.Network.TLS {
		return nil
	}
	cert, key, err := conns.WriteCert(f.dir)
	if err != nil {
		return fmt.Errorf("network.tls: making the certificate: %w", err)
	}
	f.tls = tlsFiles{cert: cert, key: key}
	return nil
}

// serverArgs are the flags of a process that serves TLS.
func (t tlsFiles) serverArgs() []string {
	if t.cert == "" {
		return nil
	}
	return []string{"--tls-cert", t.cert, "--tls-key", t.key}
}

// clientArgs are the flags of a process that connects over TLS.
func (t tlsFiles) clientArgs() []string {
	if t.cert == "" {
		return nil
	}
	return []string{"--tls-ca", t.cert}
}

// balancerConnections adds what the balancers' connections to the servers
// cost (their handshakes and waits, from their states) to a run's
// connection figures; the loadgen counted the clients' own.
func (f *fleet) balancerConnections(ctx context.Context, run *report.Run) {
	if run.Connections == nil {
		return
	}
	for _, p := range f.balancers() {
		var st state.LB
		if err := admin.Call(ctx, p.Ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
			f.opts.Log.Warn("cannot read a balancer's connections", zap.String("balancer", p.Name), zap.Error(err))
			continue
		}
		if c := st.Connections; c != nil {
			run.Connections.Add(c.Opened, c.HandshakeMs, c.Waits, c.WaitMs, run.Requests)
		}
	}
}
