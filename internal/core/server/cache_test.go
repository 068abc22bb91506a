package server

import (
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
	for _, size := range []int{1, 3, 16} {
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
