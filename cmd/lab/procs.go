package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/lblab/lblab/internal/cli/backendcmd"
	"github.com/lblab/lblab/internal/cli/lbcmd"
	"github.com/lblab/lblab/internal/cli/loadgencmd"
)

// processCommands are the hidden `lab backend|loadgen ...` subcommands:
// the same programs as the stand-alone binaries, so `lab run` and `lab up`
// can start every process of a lab from this one binary.
func processCommands() []*cobra.Command {
	mains := map[string]func(args []string, stdout, stderr io.Writer) int{
		"backend": backendcmd.Main,
		"loadgen": loadgencmd.Main,
		"lb":      lbcmd.Main,
	}
	var cmds []*cobra.Command
	for name, mainFn := range mains {
		cmds = append(cmds, &cobra.Command{
			Use:                name + " [flags]",
			Short:              "run the " + name + " process (as cmd/" + name + "; used by lab run and lab up)",
			Hidden:             true,
			DisableFlagParsing: true,
			Run: func(cmd *cobra.Command, args []string) {
				os.Exit(mainFn(args, os.Stdout, os.Stderr))
			},
		})
	}
	return cmds
}
