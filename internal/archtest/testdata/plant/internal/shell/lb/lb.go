// Package lb stands for a shell; it imports only wire, yet reaches backend.
package lb

import "example.com/plant/internal/shell/wire"

// Backend names the backend it forwards to.
const Backend = wire.Name
