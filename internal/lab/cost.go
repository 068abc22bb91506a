package lab

import (
	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/labfile"
)

// budget is what a lab may cost in this controller (Options.Budget; zero:
// assemble.DefaultBudget).
func (o Options) budget() assemble.Budget {
	if o.Budget == (assemble.Budget{}) {
		return assemble.DefaultBudget
	}
	return o.Budget
}

// checkDrillCost refuses a drill that changes settings (set, algorithm)
// into a lab over the budget: set servers.cache.size=1000000 on a large
// fleet is checked like the same lab given to lab up.
func checkDrillCost(lab *labfile.Lab, ev labfile.Event, b assemble.Budget) error {
	if ev.Action != labfile.ActionSet && ev.Action != labfile.ActionAlgorithm {
		return nil
	}
	after, err := lab.WithSetting(labfile.Setting{Name: "drill", Algorithm: ev.Algorithm, Set: ev.Set})
	if err != nil {
		return nil // validate has refused what does not apply
	}
	return assemble.CheckCost(after, nil, false, b)
}
