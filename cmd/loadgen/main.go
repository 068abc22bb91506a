// Command loadgen replays a lab's seeded request stream over real HTTP (see
// internal/cli/loadgencmd and docs/loadgen.md).
package main

import (
	"os"

	"github.com/lblab/lblab/internal/cli/loadgencmd"
)

func main() { os.Exit(loadgencmd.Main(os.Args[1:], os.Stdout, os.Stderr)) }
