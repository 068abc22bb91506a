// Command lab is the user's front door to lblab: run a scenario in virtual
// time (sim), list the built-in scenarios and algorithms.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	labproc "github.com/lblab/lblab/internal/lab/proc"
)

// usageError marks bad input (flags, lab files): exit status 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// interrupted is a live run stopped by Ctrl-C or SIGTERM after it printed
// what ran: exit status 130, as shells expect of an interrupted command.
type interrupted struct{ what string }

func (i interrupted) Error() string { return i.what }

// exitInterrupted is the exit status of an interrupted run (128 + SIGINT).
const exitInterrupted = 130

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
	root.SuggestionsMinimumDistance = 2
	root.AddCommand(simCommand(), watchCommand(), sweepCommand(), runCommand(), upCommand(), dashboardCommand(), chaosCommand(), scenariosCommand(), claimsCommand(), algorithmsCommand(), tortureCommand())
	root.AddCommand(processCommands()...)
	usageArgs(root)
	root.AddCommand(probeCommand())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "lab:", err)
		var u usageError
		var start *labproc.StartError
		if errors.As(err, &u) || errors.As(err, &start) && start.ExitCode() == 2 {
			os.Exit(2) // bad input: a flag, a lab file, a port in use
		}
		var intr interrupted
		if errors.As(err, &intr) || errors.Is(err, context.Canceled) {
			os.Exit(exitInterrupted)
		}
		os.Exit(1)
	}
}

// usageArgs makes a wrong number of arguments, and an unknown command, a
// usage error (exit 2) that shows how to call the command; lab alone
// prints its help.
func usageArgs(root *cobra.Command) {
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q (lab --help lists them)", args[0])
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg = fmt.Sprintf("unknown command %q: did you mean %s?", args[0], strings.Join(s, " or "))
		}
		return usageError{errors.New(msg)}
	}
	root.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	var wrap func(*cobra.Command)
	wrap = func(c *cobra.Command) {
		if check := c.Args; check != nil && c != root {
			c.Args = func(cmd *cobra.Command, args []string) error {
				if err := check(cmd, args); err != nil {
					return usageError{fmt.Errorf("%s: %w (usage: %s)", cmd.CommandPath(), err, cmd.UseLine())}
				}
				return nil
			}
		}
		for _, sub := range c.Commands() {
			wrap(sub)
		}
	}
	wrap(root)
}
