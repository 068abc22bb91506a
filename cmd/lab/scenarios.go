package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/scenarios"
)

func scenariosCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "scenarios",
		Short: "List the built-in scenarios, one line each",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, name := range scenarios.Names() {
				lab, err := loadLab(name)
				if err != nil {
					return err
				}
				fmt.Fprintf(tw, "%s\t%s\n", name, lab.Description)
			}
			return tw.Flush()
		},
	}
}

func algorithmsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "algorithms",
		Short: "List the balancing algorithms, one line each",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, name := range policy.Algorithms() {
				fmt.Fprintf(tw, "%s\t%s\n", name, policy.DescribeAlgorithm(name))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "\nsettings that work with them (docs/labfile.md):")
			tw = tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, f := range policy.Features() {
				fmt.Fprintf(tw, "%s\t%s\n", f.Setting, f.About)
			}
			return tw.Flush()
		},
	}
}
