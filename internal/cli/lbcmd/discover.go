package lbcmd

import (
	"flag"
	"fmt"
	"time"

	"github.com/lblab/lblab/internal/shell/discover"
)

// dnsFlags are the flags of DNS discovery (--backends-dns and its company).
type dnsFlags struct {
	name      *string
	adminPort *int
	every     *time.Duration
}

func defineDNSFlags(fs *flag.FlagSet) dnsFlags {
	return dnsFlags{
		name: fs.String("backends-dns", "", "take backends from the A records of `HOST:PORT`'s name (a compose service with replicas,\n"+
			"a Kubernetes headless service), each at PORT, re-resolved every --dns-interval: new\n"+
			"addresses are added, vanished ones removed; each is named as its GET /healthz says"),
		adminPort: fs.Int("backends-dns-admin", 0, "the discovered backends' admin `PORT` (for GET /load and hedge cancellations)"),
		every:     fs.Duration("dns-interval", discover.DefaultEvery, "how often --backends-dns is re-resolved"),
	}
}

// config is the discovery config, nil without --backends-dns.
func (d dnsFlags) config() (*discover.Config, error) {
	if *d.name == "" {
		if *d.adminPort != 0 {
			return nil, fmt.Errorf("--backends-dns-admin needs --backends-dns")
		}
		return nil, nil
	}
	c, err := discover.Parse("--backends-dns", *d.name, false)
	if err != nil {
		return nil, err
	}
	if *d.adminPort < 0 || *d.adminPort > 65535 {
		return nil, fmt.Errorf("--backends-dns-admin: want a port in 1..65535, got %d", *d.adminPort)
	}
	c.AdminPort, c.Every = *d.adminPort, *d.every
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("--dns-interval: %w", err)
	}
	return &c, nil
}
