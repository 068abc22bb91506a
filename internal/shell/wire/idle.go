package wire

// Join-the-idle-queue's messages (jiq): a backend announces itself idle to
// a balancer, and asks a balancer its idle queue's length
// (docs/admin-api-lb.md); the lab tells each backend the balancers
// (docs/admin-api-backend.md).

// IdlePath is the lb's admin path that takes a backend's idle
// announcement: POST {"server": NAME}.
const IdlePath = "/admin/idle"

// IdleQueuePath is the lb's admin path that answers its idle queue:
// GET, state.IdleQueue.
const IdleQueuePath = "/admin/idle-queue"

// BalancersPath is the backend's admin path that sets the balancers it
// announces itself idle to: POST IdleBalancers.
const BalancersPath = "/admin/balancers"

// IdleAnnouncement is POST /admin/idle's body: the backend that is idle.
type IdleAnnouncement struct {
	Server string `json:"server"`
}

// IdleBalancers is the backend's POST /admin/balancers body: the
// balancers' admin addresses, in tier order.
type IdleBalancers struct {
	Balancers []string `json:"balancers"`
}
