// Package client stands for the client runtime: it reaches the lab-file
// parser through the report it imports.
package client

import "example.com/plant/internal/report"

// Headline is the report's.
func Headline() string { return report.Headline() }
