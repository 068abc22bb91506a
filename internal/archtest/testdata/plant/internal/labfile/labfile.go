// Package labfile stands for a settings package the cores import: it may use
// the OS, but not the wall clock, since its code runs inside a simulation.
package labfile

import (
	"os"
	"time"
)

// Stamp reads the wall clock on the cores' behalf.
func Stamp() time.Time { _ = os.Getpid(); return time.Now() }
