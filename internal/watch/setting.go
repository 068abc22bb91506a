package watch

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/suggest"
)

// SettingNamed is the setting of lab that name plays (lab watch
// --setting): its compare setting of that name, else the algorithm of that
// name as a setting; "" is the zero setting, the lab itself. A name that
// is neither is an error naming it and the settings there are (the caller
// puts its flag or field in front).
func SettingNamed(lab *labfile.Lab, name string) (labfile.Setting, error) {
	if name == "" {
		return labfile.Setting{}, nil
	}
	var names []string
	for _, s := range lab.Compare {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	if slices.Contains(policy.Algorithms(), name) {
		return labfile.Setting{Name: name, Algorithm: name}, nil
	}
	return labfile.Setting{}, fmt.Errorf("%q: not a compare setting of %s (%s) nor an algorithm (lab algorithms)%s", name, lab.Name, strings.Join(names, ", "),
		suggest.DidYouMean(name, append(names, policy.Algorithms()...), false))
}

// FirstSetting is the setting a lab plays when none is named (lab watch
// FILE, a scenario picked, a lab posted, as the live scenario picker): its first compare setting, or the
// zero setting when it has none.
func FirstSetting(lab *labfile.Lab) labfile.Setting {
	if len(lab.Compare) > 0 {
		return lab.Compare[0]
	}
	return labfile.Setting{}
}
