// Command lb is the live reverse proxy of a lab (see internal/cli/lbcmd and
// docs/admin-api-lb.md).
package main

import (
	"os"

	"github.com/lblab/lblab/internal/cli/lbcmd"
)

func main() { os.Exit(lbcmd.Main(os.Args[1:], os.Stdout, os.Stderr)) }
