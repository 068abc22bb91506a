package wire

import (
	"fmt"
	"net"
	"strconv"
)

// BackendSpec is a server as POST /admin/backends names it: one of the lb's
// backends, or one of the loadgen's servers when the clients balance
// themselves. Admin, optional, serves GET /load and hedge cancellations.
type BackendSpec struct {
	Name   string  `json:"name"`
	Addr   string  `json:"addr"`
	Admin  string  `json:"admin,omitempty"`
	Weight float64 `json:"weight,omitempty"` // weighted-round-robin; 0 = the lab's speed for that name, else 1
}

// Check validates the name and the addresses (not the weight, which is the
// lab's business); each error starts with the JSON field it is about.
func (s BackendSpec) Check() error {
	if err := CheckName(s.Name); err != nil {
		return fmt.Errorf("name: %w", err)
	}
	if err := CheckAddr(s.Addr); err != nil {
		return fmt.Errorf("addr: backend %s: %w", s.Name, err)
	}
	if s.Admin != "" {
		if err := CheckAddr(s.Admin); err != nil {
			return fmt.Errorf("admin: backend %s: %w", s.Name, err)
		}
	}
	return nil
}

// CheckName accepts 1 to 64 letters, digits, '-', '_' and '.'.
func CheckName(n string) error {
	if n == "" || len(n) > 64 {
		return fmt.Errorf("must be 1 to 64 characters, got %q", n)
	}
	for _, r := range n {
		ok := r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !ok {
			return fmt.Errorf("%q: use letters, digits, '-', '_' or '.'", n)
		}
	}
	return nil
}

// CheckAddr accepts HOST:PORT with a port in 1..65535 (an empty host is
// localhost to the dialer).
func CheckAddr(a string) error {
	_, port, err := net.SplitHostPort(a)
	if err != nil {
		return fmt.Errorf("%q is not HOST:PORT", a)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("%q: the port must be a number in 1..65535", a)
	}
	return nil
}
