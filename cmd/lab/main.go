// Command lab is the user's front door to lblab: run a scenario in virtual
// time (sim), list the built-in scenarios and algorithms.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lblab/lblab/internal/cli/usage"
	labproc "github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/suggest"
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
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return usageError{flagMistake(cmd, err)} })
	root.Version = usage.Version("lab")
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().Bool("version", false, "print the version and the commit this binary was built from")
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
		var names []string
		for _, c := range cmd.Commands() {
			if !c.Hidden {
				names = append(names, c.Name())
				names = append(names, c.Aliases...)
			}
		}
		if s := suggest.Nearest(args[0], names); s != "" {
			msg = fmt.Sprintf("unknown command %q: did you mean %s?", args[0], s)
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

// unknownFlag is pflag's message for a flag no command defines.
var unknownFlag = regexp.MustCompile(`^unknown flag: --([^ =]+)`)

// flagMistake is a flag error in one line: an unknown flag names the
// nearest flag of the command, as the daemons' command lines do
// (internal/cli/usage).
func flagMistake(cmd *cobra.Command, err error) error {
	m := unknownFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	msg := fmt.Sprintf("unknown flag --%s", m[1])
	if s := suggest.Nearest(m[1], names); s != "" {
		msg += fmt.Sprintf("; did you mean --%s?", s)
	}
	return fmt.Errorf("%s (%s --help lists the flags)", msg, cmd.CommandPath())
}
