package control

import (
	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/labfile"
)

// budget is what a lab may cost in this controller (Budget; zero:
// assemble.DefaultBudget).
func (o Options) budget() assemble.Budget {
	if o.Budget == (assemble.Budget{}) {
		return assemble.DefaultBudget
	}
	return o.Budget
}

// checkDrillCost refuses a drill that would make lab cost more than the
// budget: the lab as the drill changes its settings (labfile.Lab.Record,
// the drill table's record: set servers.cache.size=1000000 on a large
// fleet) is checked like the same lab given to lab up. A drill that changes
// no setting leaves lab as it was admitted, and is not checked.
func checkDrillCost(lab *labfile.Lab, ev labfile.Event, b assemble.Budget) error {
	if d, ok := labfile.DrillOf(ev.Action); !ok || !d.ChangesSettings() {
		return nil
	}
	lab.Record(ev) // lab is the caller's copy
	return assemble.CheckCost(lab, nil, false, b)
}
