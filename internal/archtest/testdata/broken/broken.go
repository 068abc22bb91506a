// Package broken does not type-check: archtest must fail on it, not skip it.
package broken

var X int = "not an int"
