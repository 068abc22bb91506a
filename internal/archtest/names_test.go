package archtest

import (
	"slices"
	"testing"

	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
)

// The lab-file schema lists the algorithms it accepts without importing the
// core (import directions); this keeps that list equal to the registry's.
func TestAlgorithmListsAgree(t *testing.T) {
	if !slices.Equal(labfile.Algorithms, balance.Names) || !slices.Equal(policy.Algorithms(), balance.Names) {
		t.Fatalf("labfile %v, policy %v, balance %v", labfile.Algorithms, policy.Algorithms(), balance.Names)
	}
	for _, n := range balance.Names {
		if balance.Describe(n) == "" {
			t.Errorf("%s has no description", n)
		}
	}
}
