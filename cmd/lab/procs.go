package main

import (
	"io"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/lblab/lblab/internal/cli/backendcmd"
	"github.com/lblab/lblab/internal/cli/lbcmd"
	"github.com/lblab/lblab/internal/cli/loadgencmd"
)

// processCommands are the `lab backend|lb|loadgen ...` subcommands:
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
			Short:              "Run the " + name + " process, as the " + name + " binary does (lab run and lab up start it so); " + name + " --help lists its flags",
			DisableFlagParsing: true,
			Run: func(cmd *cobra.Command, args []string) {
				os.Exit(mainFn(args, os.Stdout, os.Stderr))
			},
		})
	}
	return append(cmds, spinCommand())
}

// spinCommand is the hidden `lab spin --for D`: a busy process, one
// goroutine spinning on one CPU for D, which lab torture --live starts
// beside a lab to starve its processes of CPU.
func spinCommand() *cobra.Command {
	var d time.Duration
	cmd := &cobra.Command{
		Use:    "spin --for D",
		Short:  "burn one CPU for D (used by lab torture --live)",
		Hidden: true,
		Args:   cobra.NoArgs,
		Run: func(*cobra.Command, []string) {
			runtime.GOMAXPROCS(1)
			for end := time.Now().Add(d); time.Now().Before(end); {
			}
		},
	}
	cmd.Flags().DurationVar(&d, "for", time.Second, "how long to spin")
	return cmd
}
