// Package dnsflags defines the flags of DNS discovery, shared by the lb
// (--backends-dns) and the loadgen's client-side mode (--servers-dns): the
// name to resolve, the members' admin port and how often to re-resolve.
package dnsflags

import (
	"flag"
	"fmt"
	"time"

	"github.com/lblab/lblab/internal/shell/discover"
)

// Flags are one process's discovery flags.
type Flags struct {
	flag      string // e.g. --backends-dns
	name      *string
	adminPort *int
	every     *time.Duration
}

// Define adds --PREFIX-dns, --PREFIX-dns-admin and --dns-interval to fs;
// what names the members ("backends", "servers") and adminUse says what
// their admin port serves.
func Define(fs *flag.FlagSet, prefix, what, adminUse string) Flags {
	f := Flags{flag: "--" + prefix + "-dns"}
	f.name = fs.String(prefix+"-dns", "", "take "+what+" from the A records of `HOST:PORT`'s name (a compose service with replicas,\n"+
		"a Kubernetes headless service), each at PORT, re-resolved every --dns-interval: new\n"+
		"addresses are added, vanished ones removed; each is named as its GET /healthz says")
	f.adminPort = fs.Int(prefix+"-dns-admin", 0, "the discovered "+what+"' admin `PORT` ("+adminUse+")")
	f.every = fs.Duration("dns-interval", discover.DefaultEvery, "how often "+f.flag+" is re-resolved")
	return f
}

// Config is the discovery config, nil without the name flag.
func (f Flags) Config() (*discover.Config, error) {
	if *f.name == "" {
		if *f.adminPort != 0 {
			return nil, fmt.Errorf("%s-admin needs %s", f.flag, f.flag)
		}
		return nil, nil
	}
	c, err := discover.Parse(f.flag, *f.name, false)
	if err != nil {
		return nil, err
	}
	if *f.adminPort < 0 || *f.adminPort > 65535 {
		return nil, fmt.Errorf("%s-admin: want a port in 1..65535, got %d", f.flag, *f.adminPort)
	}
	c.AdminPort, c.Every = *f.adminPort, *f.every
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("--dns-interval: %w", err)
	}
	return &c, nil
}
