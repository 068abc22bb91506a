package policy

import "github.com/lblab/lblab/internal/core/balance"

// Algorithms lists the balancing algorithms by name (balance.Names, the one
// list; this is a copy the caller may keep).
func Algorithms() []string { return append([]string(nil), balance.Names...) }

// DescribeAlgorithm returns a one-line description of an algorithm.
func DescribeAlgorithm(name string) string { return balance.Describe(name) }
