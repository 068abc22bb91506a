package main

import (
	"fmt"
	"time"

	"github.com/lblab/lblab/internal/shell/discover"
)

// dnsOption reads lab dashboard's --backends-dns HOST:ADMINPORT and
// --dns-interval; nil without --backends-dns.
func dnsOption(spec string, every time.Duration) (*discover.Config, error) {
	if spec == "" {
		return nil, nil
	}
	c, err := discover.Parse("--backends-dns", spec, true)
	if err != nil {
		return nil, err
	}
	c.Every = every
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("--dns-interval: %w", err)
	}
	return &c, nil
}

// dnsSummary is the --check-config line's word on DNS discovery.
func dnsSummary(c *discover.Config) string {
	if c == nil {
		return ""
	}
	return " and those behind " + c.String()
}
