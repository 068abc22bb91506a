package metrics

// Label values, indexed by the cores' enums that the observe interfaces
// pass as integers. TestLabelTables keeps them in step with the enums'
// String methods.
var (
	kindLabels   = [...]string{"first", "retry", "hedge", "probe"}                                   // server.Kind
	statusLabels = [...]string{"ok", "error", "rejected", "dropped", "lost", "refused", "cancelled"} // server.Status
	resultLabels = [...]string{"ok", "error", "rejected", "timeout", "cancelled"}                    // policy.Result
	// policy.Outcome; Pending (0) is never an end, and the doc spells
	// timed-out with an underscore, as label values usually are.
	outcomeLabels = [...]string{"", "succeeded", "failed", "rejected", "timed_out"}
)

const (
	nKinds    = len(kindLabels)
	nStatuses = len(statusLabels)
	nResults  = len(resultLabels)
	nOutcomes = len(outcomeLabels)
)

// in reports whether i indexes a table of n labels; out-of-range values
// from a newer core are dropped rather than panicking in a request.
func in(i, n int) bool { return uint(i) < uint(n) }
