// Package labfile stands for a settings package the cores import: it may use
// neither the OS nor the wall clock, since its code runs inside a
// simulation (reading a lab file is another package's), and knows no proxy.
package labfile

import (
	"os"
	"time"

	"example.com/plant/internal/proxies"
)

// Stamp reads the OS and the wall clock on the cores' behalf.
func Stamp() time.Time { _ = os.Getpid(); return time.Now() }

// Kinds checks balancer kinds against the proxies' own table.
func Kinds() []string { return proxies.Kinds() }
