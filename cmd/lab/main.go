// Command lab is the user's front door to lblab: run a scenario in virtual
// time (sim), list the built-in scenarios and algorithms.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	livelab "github.com/lblab/lblab/internal/lab"
)

// usageError marks bad input (flags, lab files): exit status 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func main() {
	root := &cobra.Command{
		Use:   "lab",
		Short: "lblab: see what balancing, retries and breakers do to traffic",
		Long: `lab runs load-balancing labs. A lab file (YAML) describes clients, balancers,
servers and a timed script of chaos; "lab sim" runs it in deterministic virtual
time and prints the report. See docs/labfile.md for the lab-file reference.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(simCommand(), runCommand(), upCommand(), dashboardCommand(), chaosCommand(), scenariosCommand(), algorithmsCommand())
	root.AddCommand(processCommands()...)
	root.AddCommand(probeCommand())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "lab:", err)
		var u usageError
		var start *livelab.StartError
		if errors.As(err, &u) || errors.As(err, &start) && start.ExitCode() == 2 {
			os.Exit(2) // bad input: a flag, a lab file, a port in use
		}
		os.Exit(1)
	}
}
