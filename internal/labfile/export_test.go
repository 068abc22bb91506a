package labfile

// What the external tests (package labfile_test, which parse lab files
// with labyaml) read of labfile's internals.

var (
	Num      = num
	ShortDur = shortDur
)

// KeepTiers saves the tiers handed (UseTiers) and returns what restores
// them.
func KeepTiers() (restore func()) {
	saved := tiers
	return func() { tiers = saved }
}
