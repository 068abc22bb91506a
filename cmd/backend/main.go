// Command backend is one live emulated server of a lab (see
// internal/cli/backendcmd and docs/admin-api-backend.md).
package main

import (
	"os"

	"github.com/lblab/lblab/internal/cli/backendcmd"
)

func main() { os.Exit(backendcmd.Main(os.Args[1:], os.Stdout, os.Stderr)) }
