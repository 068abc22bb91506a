package labfile

// The settings that take one of a few words are types of their own, parsed
// and checked once here: code elsewhere compares against these constants,
// never against a string, so a misspelt value cannot compile.

// LoopMode is how clients pace their requests (clients.mode).
type LoopMode string

const (
	OpenLoop   LoopMode = "open"   // Poisson arrivals at clients.rate
	ClosedLoop LoopMode = "closed" // clients.users, each waiting for its answer, then thinking
)

// WorkAt says who draws a request's service time (clients.work_at).
type WorkAt string

const (
	WorkAtClient WorkAt = "client" // requests carry their work
	WorkAtServer WorkAt = "server" // each server draws per attempt
)

// Activity is how requests spread over client ids (clients.activity).
type Activity string

const (
	EvenActivity Activity = "even"
	ZipfActivity Activity = "zipf"
)

// BackoffJitter is the jitter of retry backoff (clients.backoff.jitter).
type BackoffJitter string

const (
	FullJitter BackoffJitter = "full" // a uniform wait in [0, the backoff]
	NoJitter   BackoffJitter = "none"
)

// LoadMode is where a balancer's load figures come from (balancers.load).
type LoadMode string

const (
	LocalLoad  LoadMode = "local"  // its own counts, fresh
	SharedLoad LoadMode = "shared" // the servers' reports, refreshed periodically
)

// HashOn is what key-affinity algorithms hash (balancers.hash_on).
type HashOn string

const (
	HashKey    HashOn = "key"
	HashClient HashOn = "client"
)

// Discipline is a server queue's order (queue.discipline).
type Discipline string

const (
	FIFO Discipline = "fifo"
	LIFO Discipline = "lifo"
)

func names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
