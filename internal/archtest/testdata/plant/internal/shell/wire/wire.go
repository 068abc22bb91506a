// Package wire stands for the shells' shared contract; this one wrongly
// imports a shell, so lb reaches backend through it.
package wire

import "example.com/plant/internal/shell/backend"

// Name names the backend.
const Name = backend.Name
