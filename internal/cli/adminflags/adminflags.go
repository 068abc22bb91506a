// Package adminflags are the flags every lblab process takes for its
// listeners: who may use the admin API (--token, --allow-host) and how many
// connections the data listener holds (--max-conns). docs/admin-api.md
// explains them.
package adminflags

import (
	"flag"
	"strings"

	"github.com/lblab/lblab/internal/shell/wire"
)

// Flags are the parsed values.
type Flags struct {
	token    string
	allow    list
	maxConns int
}

// list is a flag that may be repeated.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

// Add defines --token and --allow-host on fs, and --max-conns when the
// process has a data listener.
func Add(fs *flag.FlagSet, data bool) *Flags {
	f := &Flags{}
	fs.StringVar(&f.token, "token", "", "the admin API's token: callers send Authorization: Bearer TOKEN\n"+
		"(default: $"+wire.TokenEnv+"; required when --admin is not a loopback address)")
	fs.Var(&f.allow, "allow-host", "further Host names the admin API answers to: NAME, NAME:PORT, or * for any\n"+
		"(needs a token); comma list, may be repeated (default: $"+wire.AllowHostEnv+")")
	if data {
		fs.IntVar(&f.maxConns, "max-conns", 0, "at most this many connections on the data listener; more are answered 503\n"+
			"(0: half the open-files limit)")
	}
	return f
}

// Access is the admin listener's access at admin (the --admin address),
// refused when that address is not loopback and there is no token.
func (f *Flags) Access(admin string) (wire.Access, error) {
	a, err := wire.NewAccess(f.token, f.allow)
	if err != nil {
		return a, err
	}
	if err := a.Check("--admin", admin); err != nil {
		return a, err
	}
	return a, wire.CheckMaxConns(f.maxConns)
}

// Token is --token or $LBLAB_TOKEN, checked: the process presents it to
// its peers' admin APIs (wire.Authorize), whether or not it has one.
func (f *Flags) Token() (string, error) {
	a, err := wire.NewAccess(f.token, nil)
	return a.Token, err
}

// MaxConns is --max-conns (0 = the default).
func (f *Flags) MaxConns() int { return f.maxConns }
