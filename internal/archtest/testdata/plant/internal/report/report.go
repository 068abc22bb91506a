// Package report stands for the report the client runtime fills; it must
// not import the lab-file parser.
package report

import "example.com/plant/internal/labfile"

// Headline names its figure by a lab file's word.
func Headline() string { _ = labfile.Stamp; return "p99" }
