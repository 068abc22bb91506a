package control

import (
	"github.com/lblab/lblab/internal/assemble"
)

// budget is what a lab may cost in this controller (Budget; zero:
// assemble.DefaultBudget).
func (o Options) budget() assemble.Budget {
	if o.Budget == (assemble.Budget{}) {
		return assemble.DefaultBudget
	}
	return o.Budget
}
