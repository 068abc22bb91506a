package server

// lru is a least-recently-used set of at most size keys. Nodes live in
// arrays linked into a recency list (head = most recent); an open-addressing
// table with linear probing and backward-shift deletion maps keys to nodes.
// The arrays grow as keys arrive (doubling, and the table with them, kept at
// most half full), so a cache's memory follows the keys it has held, not its
// size: 10,000 servers with a cache of a million entries each cost nothing
// until their keys come. Once full, nothing more is allocated.
type lru struct {
	size       int // the most keys held
	keys       []uint64
	prev, next []int32
	head, tail int32 // -1 when empty
	table      []int32
	mask       uint64
	shift      uint
}

const none = -1

// minTable is the table's first size (positions); it doubles from there.
const minTable = 16

func newLRU(size int) lru {
	c := lru{size: size}
	if size > 0 {
		c.resize(minTable)
	}
	c.head, c.tail = none, none
	return c
}

func (c *lru) enabled() bool { return c.size > 0 }

// resize makes the table n positions (a power of two) and puts every held
// key back in it.
func (c *lru) resize(n int) {
	bits := uint(0)
	for 1<<bits < n {
		bits++
	}
	c.table = make([]int32, 1<<bits)
	c.mask, c.shift = 1<<bits-1, 64-bits
	for i := range c.table {
		c.table[i] = none
	}
	for n, k := range c.keys {
		pos, _ := c.find(k)
		c.table[pos] = int32(n)
	}
}

// clear empties the cache (keeping what it has allocated).
func (c *lru) clear() {
	c.keys, c.prev, c.next = c.keys[:0], c.prev[:0], c.next[:0]
	c.head, c.tail = none, none
	for i := range c.table {
		c.table[i] = none
	}
}

// allocated is how many keys the cache has room for without growing.
func (c *lru) allocated() int { return cap(c.keys) }

// home is the key's preferred table position (Fibonacci hashing).
func (c *lru) home(key uint64) uint64 { return key * 0x9e3779b97f4a7c15 >> c.shift }

// find returns the table position holding key, or the empty position where it
// would go, and whether it is there.
func (c *lru) find(key uint64) (uint64, bool) {
	for i := c.home(key); ; i = (i + 1) & c.mask {
		n := c.table[i]
		if n == none {
			return i, false
		}
		if c.keys[n] == key {
			return i, true
		}
	}
}

// lookup reports whether key is cached and makes it the most recent; a miss
// inserts it, evicting the least recent key when full.
func (c *lru) lookup(key uint64) bool {
	pos, ok := c.find(key)
	if ok {
		n := c.table[pos]
		c.unlink(n)
		c.pushFront(n)
		return true
	}
	var n int32
	if len(c.keys) < c.size {
		n = int32(len(c.keys))
		c.keys = append(c.keys, key)
		c.prev, c.next = append(c.prev, none), append(c.next, none)
		if 2*len(c.keys) > len(c.table) {
			c.resize(2 * len(c.table))
			pos, _ = c.find(key)
		}
	} else {
		n = c.tail
		c.unlink(n)
		old, _ := c.find(c.keys[n])
		c.remove(old)
		c.keys[n] = key
		pos, _ = c.find(key)
	}
	c.table[pos] = n
	c.pushFront(n)
	return false
}

// remove empties table position i, shifting back later entries of the same
// probe run so that lookups never stop early.
func (c *lru) remove(i uint64) {
	for {
		c.table[i] = none
		j := i
		for {
			j = (j + 1) & c.mask
			n := c.table[j]
			if n == none {
				return
			}
			k := c.home(c.keys[n])
			// The entry at j may move to i unless its home lies cyclically in (i, j].
			if (i < j && (k <= i || k > j)) || (i > j && k <= i && k > j) {
				c.table[i] = n
				i = j
				break
			}
		}
	}
}

func (c *lru) unlink(n int32) {
	p, x := c.prev[n], c.next[n]
	if p == none {
		c.head = x
	} else {
		c.next[p] = x
	}
	if x == none {
		c.tail = p
	} else {
		c.prev[x] = p
	}
}

func (c *lru) pushFront(n int32) {
	c.prev[n], c.next[n] = none, c.head
	if c.head == none {
		c.tail = n
	} else {
		c.prev[c.head] = n
	}
	c.head = n
}
