package conns

import (
	"crypto/tls"
	"net"
	"sync/atomic"
)

// Listen wraps a data listener: it counts the connections accepted (TCP,
// before any TLS handshake) into accepted and, when cfg is set, serves TLS
// over them.
func Listen(ln net.Listener, cfg *tls.Config, accepted *atomic.Uint64) net.Listener {
	var out net.Listener = &counting{Listener: ln, n: accepted}
	if cfg != nil {
		out = tls.NewListener(out, cfg)
	}
	return out
}

type counting struct {
	net.Listener
	n *atomic.Uint64
}

func (c *counting) Accept() (net.Conn, error) {
	conn, err := c.Listener.Accept()
	if err == nil {
		c.n.Add(1)
	}
	return conn, err
}
