// Package load stands for the load figures; balance may import it.
package load

// Stat is one server's load.
type Stat struct{ N int }
