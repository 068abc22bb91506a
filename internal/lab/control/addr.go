package control

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// DialAddr reads the address of a lab process or controller (lab chaos
// --lab-url, lab dashboard's --lb, --backends and --loadgen) given as
// HOST:PORT or as a URL, http://HOST:PORT with or without a trailing slash,
// and returns HOST:PORT. An empty host is 127.0.0.1; the port must be 1-65535.
func DialAddr(flag, s string) (string, error) {
	host, port, err := splitAddr(flag, s)
	if err != nil {
		return "", err
	}
	if port == 0 {
		return "", fmt.Errorf("%s %s: want a port in 1..65535", flag, s)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), nil
}

// ListenAddr reads an address to listen on (lab up --listen and --lb, lab
// run --dashboard, lab dashboard --listen) given like DialAddr's; port 0
// means any free port and an empty host every interface.
func ListenAddr(flag, s string) (string, error) {
	host, port, err := splitAddr(flag, s)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), nil
}

// splitAddr takes HOST:PORT, http://HOST:PORT or either with a trailing
// slash apart.
func splitAddr(flag, s string) (string, int, error) {
	in := strings.TrimSpace(s)
	bad := func(why string) (string, int, error) {
		return "", 0, fmt.Errorf("%s %q: %s (give HOST:PORT or http://HOST:PORT)", flag, s, why)
	}
	hostport := strings.TrimSuffix(in, "/")
	if strings.Contains(in, "://") {
		u, err := url.Parse(in)
		switch {
		case err != nil:
			return bad(err.Error())
		case u.Scheme != "http":
			return bad("the lab speaks plain http, not " + u.Scheme)
		case u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/"):
			return bad("only the host and port may be given")
		}
		hostport = u.Host
	}
	if strings.Contains(hostport, "/") {
		return bad("only the host and port may be given")
	}
	host, portText, err := net.SplitHostPort(hostport)
	if err != nil {
		return bad("no port")
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return bad("the port must be a number in 0..65535")
	}
	return host, port, nil
}

// DefaultControllerAddr is where lab up serves its controller and where lab
// chaos looks for it unless told otherwise.
const DefaultControllerAddr = "127.0.0.1:8000"

// CheckFree refuses, before anything starts, an address that cannot be
// listened on (another lab up holds it, say); flag names the flag that
// chose it.
func CheckFree(flag, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%s %s: cannot listen there (%v): is another lab up running? Stop it, or choose another address with %s",
			flag, addr, err, flag)
	}
	return ln.Close()
}
