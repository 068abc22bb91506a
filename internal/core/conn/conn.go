// Package conn is the connection model: which connection an attempt rides
// from one party to another (a client to a balancer or a server, a balancer
// to a server), and so whether it pays a handshake first.
//
// Each ordered pair (From, To) has a pool of connections. One connection
// carries one request at a time (HTTP/1.1 without pipelining) and is busy
// from the attempt's send until its answer is back at the sender. An
// attempt takes, in order:
//
//  1. the most recently freed idle connection of its pair (warm, no cost),
//     after closing those idle for Keepalive or longer;
//  2. else, below MaxConns open connections (0 = no limit), a new one: the
//     attempt pays the handshake (Cost) before its first hop;
//  3. else it waits in line (first come, first served) until a connection
//     of the pair is freed (handed over warm) or closed (the first in line
//     opens a new one).
//
// An idle connection is closed once it has been idle for Keepalive or longer
// (0: connections are never kept; every request opens one). A connection
// whose exchange failed, or that its sender gave up on, is closed (Discard):
// HTTP/1.1 cannot abandon a request and keep the connection.
//
// Most recently used first is what keeps the fewest connections warm (the
// rest age out), as a LIFO connection pool does; the live shells open and
// close real connections exactly where this model says, so the choice is
// theirs too. Like the other cores it is handed the instant, reads no clock
// and is not safe for concurrent use.
package conn

import (
	"fmt"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// MaxRounds is the most round trips a handshake may take (TCP is 1, TLS 1.3
// adds 1, TLS 1.2 adds 2).
const MaxRounds = 10

// DefaultKeepalive is the Keepalive a lab file takes when it names none
// (network.keepalive): shorter than the backends' own idle limit of 2
// minutes, so the client side closes first, as a pool in front of a
// server should.
const DefaultKeepalive = 10 * time.Second

// Config is the connection model of every pair of one Table.
type Config struct {
	// Keepalive is how long a connection may stay idle: one idle this long
	// or longer is closed. 0 keeps none (a new connection per request).
	Keepalive time.Duration
	// MaxConns is how many connections a pair may hold open; 0 = no limit.
	MaxConns int
	// Handshake is what opening a connection costs the attempt that opens it.
	Handshake Cost
}

// Validate reports the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.Keepalive < 0:
		return fmt.Errorf("conn: Keepalive is %v, must be >= 0", c.Keepalive)
	case c.MaxConns < 0:
		return fmt.Errorf("conn: MaxConns is %d, must be >= 0", c.MaxConns)
	case c.Handshake.Rounds < 0 || c.Handshake.Rounds > MaxRounds:
		return fmt.Errorf("conn: Handshake.Rounds is %d, must be in [0, %d]", c.Handshake.Rounds, MaxRounds)
	case c.Handshake.Fixed < 0:
		return fmt.Errorf("conn: Handshake.Fixed is %v, must be >= 0", c.Handshake.Fixed)
	}
	return nil
}

// Cost is what opening a connection adds before its first request: Rounds
// round trips of the leg it opens or, when Rounds is 0, a Fixed time.
type Cost struct {
	Rounds int
	Fixed  time.Duration
}

// Time is the handshake's duration on a leg whose one-way delay is oneWay:
// Rounds × 2 × oneWay, or Fixed when Rounds is 0.
func (c Cost) Time(oneWay time.Duration) time.Duration {
	if c.Rounds > 0 {
		return time.Duration(c.Rounds) * 2 * oneWay
	}
	return c.Fixed
}

// ID names a connection, unique within its Table; 0 is none.
type ID uint64

// Pair is who connects to whom: indices the driver gives (a client or
// closed-loop user and a balancer or server; a balancer and a server).
type Pair struct{ From, To int32 }

func (p Pair) key() uint64 { return uint64(uint32(p.From))<<32 | uint64(uint32(p.To)) }

// Grant is Acquire's answer: the connection to ride, and whether it is new
// (the attempt pays the handshake); or Wait: none is free at the limit.
type Grant struct {
	Conn ID
	New  bool
	Wait bool
}

// Handoff is a connection handed to a request that waited for one: Ref as
// given to Acquire. OK is false when nobody was waiting.
type Handoff struct {
	Ref uint64
	Grant
	OK bool
}

// Stats count a table's connections since it was made.
type Stats struct {
	Opened uint64 // new connections: handshakes paid
	Reused uint64 // attempts that rode a warm connection (handed over ones included)
	Waited uint64 // attempts that waited in line for one
	Closed uint64 // connections closed: idle past keepalive, discarded, dropped
}

// Table is the pools of every pair of one kind (say, the clients'
// connections to the servers).
type Table struct {
	cfg   Config
	pools map[uint64]*pool
	order []*pool // creation order: what Sweep and CloseIdleTo walk
	next  ID
	stats Stats

	// OnClose, when set, is called for every connection the table closes
	// (the live shells close the real one).
	OnClose func(p Pair, c ID)
}

type pool struct {
	pair Pair
	idle []idleConn // in the order they were freed: the last is the warmest
	busy int        // connections carrying a request
	line []uint64   // requests waiting for a connection, first come first
}

type idleConn struct {
	id    ID
	since clock.Instant
}

// NewTable returns an empty table.
func NewTable(cfg Config) (*Table, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Table{cfg: cfg, pools: map[uint64]*pool{}}, nil
}

// Config is the table's model.
func (t *Table) Config() Config { return t.cfg }

// Stats are the table's counts.
func (t *Table) Stats() Stats { return t.stats }

func (t *Table) pool(p Pair) *pool {
	k := p.key()
	pl := t.pools[k]
	if pl == nil {
		pl = &pool{pair: p}
		t.pools[k] = pl
		t.order = append(t.order, pl)
	}
	return pl
}

// Acquire finds a connection from p.From to p.To for an attempt at now: a
// warm one, a new one, or a place in line (ref names the attempt in the
// Handoff that ends its wait).
func (t *Table) Acquire(now clock.Instant, p Pair, ref uint64) Grant {
	pl := t.pool(p)
	t.expire(now, pl)
	if n := len(pl.idle); n > 0 {
		c := pl.idle[n-1]
		pl.idle = pl.idle[:n-1]
		pl.busy++
		t.stats.Reused++
		return Grant{Conn: c.id}
	}
	if t.cfg.MaxConns > 0 && pl.busy >= t.cfg.MaxConns {
		pl.line = append(pl.line, ref)
		t.stats.Waited++
		return Grant{Wait: true}
	}
	pl.busy++
	return Grant{Conn: t.open(), New: true}
}

func (t *Table) open() ID {
	t.next++
	t.stats.Opened++
	return t.next
}

// Release frees connection c of pair p at now, its answer back at the
// sender. The first request in line gets it warm; else it goes idle (and,
// with Keepalive 0, is closed at once).
func (t *Table) Release(now clock.Instant, p Pair, c ID) Handoff {
	if t.cfg.Keepalive == 0 {
		return t.Discard(now, p, c)
	}
	pl := t.pool(p)
	if ref, ok := pl.pop(); ok {
		t.stats.Reused++
		return Handoff{Ref: ref, Grant: Grant{Conn: c}, OK: true}
	}
	pl.busy--
	pl.idle = append(pl.idle, idleConn{id: c, since: now})
	return Handoff{}
}

// Discard closes busy connection c of pair p at now (its exchange failed or
// its sender gave up on it). The first request in line opens a new one.
func (t *Table) Discard(_ clock.Instant, p Pair, c ID) Handoff {
	pl := t.pool(p)
	t.close(pl, c)
	if ref, ok := pl.pop(); ok {
		return Handoff{Ref: ref, Grant: Grant{Conn: t.open(), New: true}, OK: true}
	}
	pl.busy--
	return Handoff{}
}

// Withdraw takes request ref out of p's line (it gave up waiting); false
// if it was not waiting there.
func (t *Table) Withdraw(p Pair, ref uint64) bool {
	pl := t.pools[p.key()]
	if pl == nil {
		return false
	}
	for i, r := range pl.line {
		if r == ref {
			pl.line = append(pl.line[:i], pl.line[i+1:]...)
			return true
		}
	}
	return false
}

// Sweep closes, at now, every connection idle for Keepalive or longer. The
// model's choices do not depend on it (Acquire closes them as it meets
// them); the live shells call it so that idle connections close on time.
func (t *Table) Sweep(now clock.Instant) {
	for _, pl := range t.order {
		t.expire(now, pl)
	}
}

// CloseIdleTo closes every idle connection to `to` (a server that went
// down: its connections died with it). Busy ones end with their attempts.
func (t *Table) CloseIdleTo(to int32) {
	for _, pl := range t.order {
		if pl.pair.To != to {
			continue
		}
		for _, c := range pl.idle {
			t.close(pl, c.id)
		}
		pl.idle = pl.idle[:0]
	}
}

// Open is how many connections pair p holds (busy and idle, as of the last
// call that touched it).
func (t *Table) Open(p Pair) int {
	pl := t.pools[p.key()]
	if pl == nil {
		return 0
	}
	return pl.busy + len(pl.idle)
}

// MaxOpen is the most connections any one pair holds now.
func (t *Table) MaxOpen() int {
	most := 0
	for _, pl := range t.order {
		most = max(most, pl.busy+len(pl.idle))
	}
	return most
}

// Waiting is how many requests wait in p's line.
func (t *Table) Waiting(p Pair) int {
	if pl := t.pools[p.key()]; pl != nil {
		return len(pl.line)
	}
	return 0
}

// expire closes pl's connections idle for Keepalive or longer at now.
func (t *Table) expire(now clock.Instant, pl *pool) {
	kept := pl.idle[:0]
	for _, c := range pl.idle {
		if now.Sub(c.since) >= t.cfg.Keepalive {
			t.close(pl, c.id)
			continue
		}
		kept = append(kept, c)
	}
	pl.idle = kept
}

func (t *Table) close(pl *pool, c ID) {
	t.stats.Closed++
	if t.OnClose != nil {
		t.OnClose(pl.pair, c)
	}
}

// pop takes the first request in line.
func (pl *pool) pop() (uint64, bool) {
	if len(pl.line) == 0 {
		return 0, false
	}
	ref := pl.line[0]
	pl.line = pl.line[1:]
	return ref, true
}
