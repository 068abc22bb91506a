// Package assert checks the invariants the cores rely on at the place they
// must hold, in TigerBeetle's way: a broken invariant panics at once, with
// what broke, instead of corrupting the run silently. The checks are on in
// every test binary (testing.Testing) and in lab torture (On), where a
// panic is a failing seed; lab sim and the live processes run without them,
// so a check costs a branch on a false bool.
package assert

import (
	"fmt"
	"testing"
)

// On turns the checks on: every test binary starts with them on, and lab
// torture sets it before it draws its labs.
var On = testing.Testing()

// That panics with msg when the checks are on and ok is false. msg is a
// constant: a check on a hot path allocates nothing (Thatf formats).
func That(ok bool, msg string) {
	if On && !ok {
		panic("invariant broken: " + msg)
	}
}

// Thatf is That with a formatted message, for checks off the hot paths
// (its arguments are boxed whether or not the check holds).
func Thatf(ok bool, format string, a ...any) {
	if On && !ok {
		panic("invariant broken: " + fmt.Sprintf(format, a...))
	}
}
