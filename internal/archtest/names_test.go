package archtest

import (
	"testing"

	"github.com/lblab/lblab/internal/core/balance"
)

// Every algorithm of the registry (balance.Names, the one list the lab file
// and policy read) is described for `lab algorithms` and builds.
func TestAlgorithmsAreDescribed(t *testing.T) {
	for _, n := range balance.Names {
		if _, err := balance.New(balance.Config{Name: n}); err != nil {
			t.Errorf("%s: %v", n, err)
		}
		if balance.Describe(n) == "" {
			t.Errorf("%s has no description", n)
		}
	}
}
