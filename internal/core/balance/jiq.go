package balance

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

// JIQ is the configuration of jiq, join-the-idle-queue (Lu, Xie, Kliot,
// Geller, Larus, Greenberg: "Join-Idle-Queue: A novel load balancing
// algorithm for dynamically scalable web services", Performance Evaluation
// 68(11), 2011). It says which balancer's idle queue a server that falls
// idle joins; the pick itself has no setting.
type JIQ struct {
	// Join is the rule that chooses the balancer: JoinRandom (the paper's
	// JIQ-Random) or JoinShortest (JIQ-SQ(d)).
	Join JoinRule
	// Choices is d, the balancers JoinShortest samples.
	Choices int
}

// JoinRule is how an idle server chooses the balancer it announces itself to.
type JoinRule string

// The join rules.
const (
	// JoinRandom: a balancer drawn uniformly.
	JoinRandom JoinRule = "random"
	// JoinShortest: the shortest idle queue among Choices balancers drawn
	// uniformly without replacement (the first drawn among equals).
	JoinShortest JoinRule = "shortest"
)

// JoinRules lists the join rules, the default first.
var JoinRules = []JoinRule{JoinRandom, JoinShortest}

// jiq's defaults and bounds: JIQ-Random is the paper's basic algorithm, and
// d = 2 the sample its JIQ-SQ(d) is studied with.
const (
	DefaultJoin       = JoinRandom
	DefaultJIQChoices = 2
	MaxJIQChoices     = 16
)

// DefaultJIQ is jiq's configuration with the defaults.
func DefaultJIQ() JIQ { return JIQ{Join: DefaultJoin, Choices: DefaultJIQChoices} }

// ok reports whether every field is in its range.
func (c JIQ) ok() bool {
	return (c.Join == JoinRandom || c.Join == JoinShortest) && c.Choices >= 1 && c.Choices <= MaxJIQChoices
}

// Sample appends to dst the balancers (of n) an idle server asks for the
// length of their idle queue before it announces itself: one for
// JoinRandom (the one it joins), Choices of them (at most n, distinct) for
// JoinShortest, the first drawn first. The draws are rng.Hash(seed,
// number, ...), number being the announcement's own (policy.Announcement):
// both clocks draw the same balancers for the same announcement.
func (c JIQ) Sample(seed, number uint64, n int, dst []int) []int {
	if n <= 0 {
		return dst
	}
	d := 1
	if c.Join == JoinShortest {
		d = min(max(c.Choices, 1), n, MaxJIQChoices)
	}
	var taken [MaxJIQChoices]int // the draws so far, ascending
	of := rng.HashOf(seed, number)
	for k := range d {
		b := rng.Bounded(rng.SaltHash(of, saltJoin^drawConst(k, 0)), n-k)
		for _, t := range taken[:k] { // the b-th balancer not drawn yet
			if t <= b {
				b++
			}
		}
		dst = append(dst, b)
		taken[k] = b
		for i := k; i > 0 && taken[i-1] > taken[i]; i-- {
			taken[i-1], taken[i] = taken[i], taken[i-1]
		}
	}
	return dst
}

// Shortest is the place in lengths of the shortest (the first among
// equals), -1 for none: the sampled balancer a JoinShortest server joins,
// lengths being their idle queues' lengths in Sample's order.
func Shortest(lengths []int) int {
	best := -1
	for i, l := range lengths {
		if best < 0 || l < lengths[best] {
			best = i
		}
	}
	return best
}

// Idler is an algorithm that keeps a queue of the servers that announced
// themselves idle to it (jiq). The driver hands it each announcement that
// reaches the balancer (through policy.Balancer.Idle); a server announces
// when a reply leaves it with nothing in flight.
type Idler interface {
	// Idle puts member j at the tail of the idle queue, unless it is in it.
	Idle(now clock.Instant, j int)
	// IdleQueue appends the queue's members to dst, head first.
	IdleQueue(dst []int) []int
	// TookIdle reports whether the last Pick took a member off the idle
	// queue (else it drew one at random, or found none).
	TookIdle() bool
}

// jiq picks the head of its idle queue (docs/model.md gives the rule in
// full):
//
//   - the idle queue holds members that announced themselves idle, oldest
//     first, each at most once (an announcement of a member already in it
//     changes nothing);
//   - a pick takes the head and removes it; a head that is not eligible now
//     (down, unhealthy, ejected, breaker open, the hedge's sibling) is
//     removed and the next one tried: it announces itself again after its
//     next reply that leaves it idle;
//   - with no eligible member in the queue, a member drawn uniformly among
//     the eligible ones;
//   - nothing on the request's path: the queue is filled only by the
//     servers' announcements. A queued member that got work from another
//     balancer meanwhile stays in the queue, as in the paper: this
//     balancer cannot know.
//
// A member list change keeps the queued members that stay, in order. Load,
// weights and slow start do not apply.
type jiq struct {
	seed, salt uint64
	names      []string // by member
	queue      []int    // members, head first from queue[head]
	head       int      // queue[:head] were taken
	in         []bool   // by member: in the queue
	tookIdle   bool     // the last pick took the queue's head
}

func newJIQ(c Config) Algorithm { return &jiq{seed: c.Seed, salt: c.Salt} }

func (q *jiq) Name() string { return "jiq" }

// Update keeps the queued members that stay, at their new indices.
func (q *jiq) Update(servers []Server) {
	at := make(map[string]int, len(servers))
	for i, s := range servers {
		at[s.Name] = i
	}
	in := make([]bool, len(servers))
	kept := make([]int, 0, len(servers))
	for _, j := range q.queue[q.head:] {
		if k, ok := at[q.names[j]]; ok && !in[k] {
			in[k] = true
			kept = append(kept, k)
		}
	}
	q.queue, q.head, q.in = kept, 0, in
	q.names = q.names[:0]
	for _, s := range servers {
		q.names = append(q.names, s.Name)
	}
}

// Idle queues member j, unless it is queued already.
func (q *jiq) Idle(_ clock.Instant, j int) {
	if j < 0 || j >= len(q.in) || q.in[j] {
		return
	}
	q.in[j] = true
	if q.head > 0 && q.head >= len(q.queue)/2 { // reuse the taken half rather than grow
		q.queue = q.queue[:copy(q.queue, q.queue[q.head:])]
		q.head = 0
	}
	q.queue = append(q.queue, j)
}

// IdleQueue appends the queue, head first.
func (q *jiq) IdleQueue(dst []int) []int { return append(dst, q.queue[q.head:]...) }

// TookIdle reports whether the last pick took the queue's head.
func (q *jiq) TookIdle() bool { return q.tookIdle }

// Pick takes the first eligible member of the queue off it, dropping the
// ineligible ones before it; with none, an eligible member at random.
func (q *jiq) Pick(_ clock.Instant, req Request, v View) int {
	q.tookIdle = false
	for q.head < len(q.queue) {
		j := q.queue[q.head]
		q.head++
		q.in[j] = false
		if q.head == len(q.queue) {
			q.queue, q.head = q.queue[:0], 0
		}
		if j < v.Len() && v.Ok(j) {
			q.tookIdle = true
			return j
		}
	}
	var out [1]int
	if drawDistinct(v, q.seed, req.Seq, q.salt^saltJIQRandom, out[:]) == 0 {
		return -1
	}
	return out[0]
}
