package watch

import (
	"encoding/json"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/sim"
)

// waitForWaiter returns once some goroutine waits in l.Lock, and a moment
// more, for it to block on the slot it counted itself in for.
func waitForWaiter(t *testing.T, l *queueLock) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !l.waited(); runtime.Gosched() {
		if time.Now().After(end) {
			t.Fatal("nobody waited for the lock after 10 s")
		}
	}
	time.Sleep(5 * time.Millisecond)
}

// The lock goes to the goroutine waiting for it, not back to the one that
// has just unlocked it and locks it again at once (as playback at max
// does after each tick): a sync.Mutex gives it back to the latter.
func TestQueueLockGoesToTheWaiter(t *testing.T) {
	l := newQueueLock()
	order := make(chan string, 2)
	l.Lock()
	go func() {
		l.Lock()
		order <- "waiter"
		l.Unlock()
	}()
	waitForWaiter(t, l)
	l.Unlock()
	l.Lock()
	order <- "unlocker"
	l.Unlock()
	if first := <-order; first != "waiter" {
		t.Errorf("the lock went to the %s first; want the goroutine that waited for it", first)
	}
	if l.waited() {
		t.Error("waited says someone waits after both have had the lock")
	}
}

// A tick of playback at max ends after its slice when a request of the
// API waits for the lock, rather than after the tick's budget of 40 ms
// (many slices of this lab): it plays exactly the slice that a session of
// the same lab plays in one AdvanceWithin(sliceWork).
func TestTickEndsAfterItsSliceWhenARequestWaits(t *testing.T) {
	l := busyLab(t)
	srv, err := New(Options{Lab: l})
	if err != nil {
		t.Fatal(err)
	}
	if code, out := inMemory(t, srv, "POST", "/api/playback", `{"max": true}`); code != 200 {
		t.Fatalf("max: %d %s", code, out)
	}
	ref, err := newSession(srv.base, srv.allowed)
	if err != nil {
		t.Fatal(err)
	}
	// Both sessions play three slices (the first ones are the slowest),
	// then the reference one more.
	for range 3 {
		for _, sess := range []*sim.Session{srv.sess, ref} {
			if _, err := sess.AdvanceWithin((sess.Now()/bin+1)*bin, sliceWork); err != nil {
				t.Fatal(err)
			}
		}
	}
	start := srv.sess.Now()
	if _, err := ref.AdvanceWithin((ref.Now()/bin+1)*bin, sliceWork); err != nil {
		t.Fatal(err)
	}
	srv.mu.Lock()
	answered := make(chan int, 1)
	go func() { code, _ := inMemory(t, srv, "GET", "/api/playback", ""); answered <- code }()
	waitForWaiter(t, srv.mu)
	srv.playLocked(time.Now())
	played := srv.sess.Now()
	srv.mu.Unlock()
	if code := <-answered; code != 200 {
		t.Errorf("GET /api/playback: %d", code)
	}
	if start == 0 || played != ref.Now() {
		t.Errorf("a tick with a request waiting played from %v to %v; want one slice, to %v", start, played, ref.Now())
	}
}

// Playing at max, a request of the API has the lock after the tick going
// on, not after the next one too: between the snapshot last published when
// it asks (GET /api/snapshot, which waits for no lock) and its answer
// (GET /api/playback), playback published at most one snapshot, the tick
// that held the lock, in most requests. With a sync.Mutex the loop took
// the lock back after its tick before the woken request ran, and the
// request waited for two ticks or more.
func TestAPIWaitsForOneTickAtMax(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a heavy lab for a few seconds")
	}
	srv, err := New(Options{Lab: busyLab(t)})
	if err != nil {
		t.Fatal(err)
	}
	serveTest(t, srv)
	if code, out := inMemory(t, srv, "POST", "/api/playback", `{"max": true}`); code != 200 {
		t.Fatalf("max: %d %s", code, out)
	}
	published := func(path string) uint64 {
		code, out := inMemory(t, srv, "GET", path, "")
		var p dash.Playback
		var err error
		if path == "/api/snapshot" {
			var snap struct{ Playback *dash.Playback }
			snap.Playback = &p
			err = json.Unmarshal([]byte(out), &snap)
		} else {
			err = json.Unmarshal([]byte(out), &p)
		}
		if code != 200 || err != nil {
			t.Fatalf("GET %s: %d %.200s (%v)", path, code, out, err)
		}
		return p.Published
	}
	var waited []int
	for range 15 {
		time.Sleep(20 * time.Millisecond) // as the page polls: playback plays on between
		before := published("/api/snapshot")
		waited = append(waited, int(published("/api/playback")-before))
	}
	slices.Sort(waited)
	t.Logf("snapshots published while a request waited, sorted: %v", waited)
	if median := waited[len(waited)/2]; median > 1 {
		t.Errorf("half of the requests waited while playback published %d snapshots or more; want each to wait for one tick at most", median)
	}
}
