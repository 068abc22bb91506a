package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/sim"
)

// costFlag declares --max-cost (lab sim, lab run, lab up): the factor the
// lab's cost budget (assemble.DefaultBudget) is multiplied by.
func costFlag(cmd *cobra.Command, factor *float64) {
	b := assemble.DefaultBudget
	cmd.Flags().Float64Var(factor, assemble.MaxCostFlag, 1, fmt.Sprintf(
		"allow a lab `N` times the cost budget (%s of memory and %v of CPU, estimated before anything runs: servers x cache entries, balancers x servers x vnodes, events, ...)",
		assemble.Bytes(b.Memory), b.CPU))
}

// budget is the budget --max-cost asks for; a factor that is not positive
// is a usage error.
func budget(factor float64) (assemble.Budget, error) {
	b, err := assemble.Times(factor)
	if err != nil {
		return assemble.Budget{}, usageError{fmt.Errorf("--%s: %w", assemble.MaxCostFlag, err)}
	}
	return b, nil
}

// guarded is opts with the simulator's work and memory guards at the
// budget --max-cost asks for (sim.Options.Within; opts as given for a
// factor checkCost refuses).
func guarded(opts sim.Options, factor float64) sim.Options {
	b, err := assemble.Times(factor)
	if err != nil {
		return opts
	}
	return opts.Within(b)
}

// checkCost refuses, before anything runs, a lab whose estimate is over
// the budget --max-cost allows (exit 2).
func checkCost(lab *labfile.Lab, settings []labfile.Setting, k assemble.Kept, factor float64) error {
	b, err := budget(factor)
	if err != nil {
		return err
	}
	if err := assemble.CheckCostKept(lab, settings, k, b); err != nil {
		return usageError{err}
	}
	return nil
}
