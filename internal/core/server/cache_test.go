package server

import (
	"runtime"
	"testing"

	"github.com/lblab/lblab/internal/rng"
)

func TestCacheHitsAndLRUEviction(t *testing.T) {
	r := newRig(t, Config{Workers: 1, CacheSize: 2, HitFactor: 0.25})
	key := func(k uint64) func(*Job) { return func(j *Job) { j.Key = k } }
	r.arrive(ms(0), 1, dms(8), key(1))  // miss: {1}
	r.arrive(ms(10), 2, dms(8), key(1)) // hit: 2 ms
	r.arrive(ms(20), 3, dms(8), key(2)) // miss: {2, 1}
	r.arrive(ms(30), 4, dms(8), key(3)) // miss, evicts 1 (least recent): {3, 2}
	r.arrive(ms(40), 5, dms(8), key(1)) // miss, evicts 2: {1, 3}
	r.arrive(ms(50), 6, dms(8), key(3)) // hit
	r.arrive(ms(60), 7, dms(8), key(2)) // miss
	r.until(ms(100))
	r.expect("1:ok@8 q=0 s=8 2:ok@12 q=0 s=2 hit 3:ok@28 q=0 s=8 4:ok@38 q=0 s=8 " +
		"5:ok@48 q=0 s=8 6:ok@52 q=0 s=2 hit 7:ok@68 q=0 s=8")
	if snap := r.s.Snapshot(ms(100)); snap.CacheHits != 2 || snap.CacheLookups != 7 {
		t.Fatalf("hits %d lookups %d, want 2 and 7", snap.CacheHits, snap.CacheLookups)
	}
}

// TestLRUMatchesModel checks the LRU against a plain slice model under random
// operations on a small key space (many collisions and evictions).
func TestLRUMatchesModel(t *testing.T) {
	src := rng.New(7)
	for _, size := range []int{1, 3, 16, 1000} { // 1000 grows its arrays and table several times
		c := newLRU(size)
		var model []uint64 // most recent first
		for i := 0; i < 20000; i++ {
			k := uint64(src.Intn(3 * size))
			if i%5000 == 4999 {
				c.clear()
				model = model[:0]
			}
			want := false
			for j, m := range model {
				if m == k {
					want = true
					model = append(model[:j], model[j+1:]...)
					break
				}
			}
			model = append([]uint64{k}, model...)
			if len(model) > size {
				model = model[:size]
			}
			if got := c.lookup(k); got != want {
				t.Fatalf("size %d op %d key %d: hit %v, want %v", size, i, k, got, want)
			}
		}
	}
}

// TestCacheMemoryFollowsUse: a cache allocates as keys arrive, not for its
// size. Ten caches of the largest size allocated 240 MB up front before;
// now they allocate almost nothing until used, and a cache that has held k
// keys has room for at most about 2k. The memory band is wide (the runtime
// allocates a little on its own); the count of held entries is exact.
func TestCacheMemoryFollowsUse(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	caches := make([]lru, 10)
	for i := range caches {
		caches[i] = newLRU(MaxCacheSize)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("ten empty caches of %d entries allocated %d bytes", MaxCacheSize, grew)
	}
	c := &caches[0]
	for k, want := range []int{0, 1, 100, 5000} {
		for i := 0; i < want; i++ {
			c.lookup(uint64(k)<<32 | uint64(i))
		}
		if len(c.keys) != want || c.allocated() > 2*want+16 {
			t.Fatalf("after %d keys: room for %d, table %d", want, c.allocated(), len(c.table))
		}
		c.clear()
	}
	small := newLRU(64)
	for i := 0; i < 3*64; i++ { // a small cache fills and stops growing
		small.lookup(uint64(i))
		if len(small.keys) > 64 || len(small.table) > 128 {
			t.Fatalf("a cache of 64 holds %d keys in %d positions", len(small.keys), len(small.table))
		}
	}
}
