package slab

import "testing"

func TestStaleHandlesFindNothing(t *testing.T) {
	var s Slab[int]
	h1, v1 := s.New()
	*v1 = 7
	if got := s.Get(h1); got == nil || *got != 7 {
		t.Fatalf("Get = %v", got)
	}
	s.Free(h1)
	if s.Get(h1) != nil {
		t.Fatal("a freed handle still finds its value")
	}
	h2, v2 := s.New() // reuses the slot with a new generation
	if h2 == h1 || *v2 != 0 {
		t.Fatalf("reused slot: handle %x (old %x), value %d (want zeroed)", h2, h1, *v2)
	}
	if s.Get(h1) != nil {
		t.Fatal("the old handle finds the slot's new occupant")
	}
	s.Free(h1) // stale: must not free h2
	if s.Get(h2) == nil || s.Len() != 1 {
		t.Fatal("freeing a stale handle freed the live value")
	}
}

func TestPointersStayValidAcrossGrowth(t *testing.T) {
	var s Slab[[4]int]
	h, v := s.New()
	v[0] = 42
	for i := 0; i < 1000; i++ {
		s.New()
	}
	if v != s.Get(h) || v[0] != 42 {
		t.Fatal("growth moved a live value")
	}
	n := 0
	s.Each(func(uint64, *[4]int) { n++ })
	if n != 1001 || s.Len() != 1001 {
		t.Fatalf("Each saw %d, Len %d", n, s.Len())
	}
}

func TestGetOutOfRange(t *testing.T) {
	var s Slab[int]
	if s.Get(12345) != nil || s.Get(0) != nil {
		t.Fatal("unknown handles must find nothing")
	}
	s.Free(99) // no panic
}

func BenchmarkNewFree(b *testing.B) {
	var s Slab[[8]uint64]
	for i := 0; i < b.N; i++ {
		h, _ := s.New()
		s.Free(h)
	}
}
