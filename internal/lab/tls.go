package lab

import (
	"fmt"

	"github.com/lblab/lblab/internal/shell/conns"
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
