package watch

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/sim"
)

// These tests drive playback's ticks by hand and bound what a move plays
// by simulator work (postWork, tickWork), never by the wall clock: what
// they see is the same on any machine.

// playbackOf is GET /api/playback of srv, in memory.
func playbackOf(t *testing.T, srv *Server) dash.Playback {
	t.Helper()
	code, out := inMemory(t, srv, "GET", "/api/playback", "")
	var p dash.Playback
	if err := json.Unmarshal([]byte(out), &p); code != 200 || err != nil {
		t.Fatalf("GET /api/playback: %d %s (%v)", code, out, err)
	}
	return p
}

// postPlayback is POST /api/playback of body, in memory, which must be
// taken.
func postPlayback(t *testing.T, srv *Server, body string) dash.Playback {
	t.Helper()
	code, out := inMemory(t, srv, "POST", "/api/playback", body)
	var p dash.Playback
	if err := json.Unmarshal([]byte(out), &p); code != 200 || err != nil {
		t.Fatalf("POST /api/playback %s: %d %s (%v)", body, code, out, err)
	}
	return p
}

// settle ticks srv until no move goes on, each tick seeing the move
// under way in GET /api/playback and the replay never going back
// unless rewound (back to 0 first), and returns the ticks it took.
func settle(t *testing.T, srv *Server) int {
	t.Helper()
	last := playbackOf(t, srv)
	for n := 1; n <= 100_000; n++ {
		if !srv.Tick(time.Now()) {
			if p := playbackOf(t, srv); p.SeekingToS != nil {
				t.Fatalf("Tick says no tick is due at once while a move goes on: %+v", p)
			}
			return n
		}
		p := playbackOf(t, srv)
		if p.SeekingToS == nil {
			t.Fatalf("Tick says a tick is due at once, and no move goes on: %+v", p)
		}
		last = p
	}
	t.Fatalf("the move to %v s still goes on after 100,000 ticks (at %g s)", last.SeekingToS, last.T)
	return 0
}

// sameState fails unless srv shows what a session of its lab replayed
// synchronously (ref) shows: the instant, the state, the event log, the
// bins, the frames, the window's latency and the snapshot built of them.
func sameState(t *testing.T, what string, srv *Server, ref *sim.Session) {
	t.Helper()
	got := srv.sess
	if got.Now() != ref.Now() || got.Ended() != ref.Ended() {
		t.Fatalf("%s: at %v (ended %v), the synchronous replay at %v (ended %v)", what, got.Now(), got.Ended(), ref.Now(), ref.Ended())
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"state", got.State(), ref.State()},
		{"event log", got.Log(), ref.Log()},
		{"bins", got.Bins(), ref.Bins()},
		{"frames", got.Frames(), ref.Frames()},
		{"script", got.Lab(), ref.Lab()},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: the %s differs from the synchronous replay's", what, c.name)
		}
	}
	p50, p99, ok := got.WindowLatency()
	q50, q99, ok2 := ref.WindowLatency()
	if p50 != q50 || p99 != q99 || ok != ok2 {
		t.Errorf("%s: the window's latency %v %v %v, the synchronous replay's %v %v %v", what, p50, p99, ok, q50, q99, ok2)
	}
	mine, err := json.Marshal(srv.build())
	if err != nil {
		t.Fatal(err)
	}
	sess := srv.sess
	srv.sess = ref
	theirs, err := json.Marshal(srv.build())
	srv.sess = sess
	if err != nil {
		t.Fatal(err)
	}
	if string(mine) != string(theirs) {
		t.Errorf("%s: the snapshot differs from the synchronous replay's", what)
	}
}

// A seek in a heavy lab (busyLab: a 250 ms bin is about 22 million visits)
// answers once it has played postWork of the replay, with the move going
// on (seeking_to_s, and t_s where the replay is); GET /api/playback and
// /api/snapshot answer meanwhile and show it, each tick carries it on
// while paused, a drill is refused with 409 until it arrives, and restart
// drops it.
func TestSeekInAHeavyLabAnswersAtOnce(t *testing.T) {
	srv, err := New(Options{Lab: busyLab(t), Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.tickWork = sliceWork
	p := postPlayback(t, srv, `{"seek_s": 2}`)
	if p.SeekingToS == nil || *p.SeekingToS != 2 || p.T <= 0 || p.T >= 2 || !p.Paused || p.SeekingEvent {
		t.Fatalf("seek_s 2 answered %+v; want the move to 2 s going on, its replay past 0, paused", p)
	}
	if srv.sess.Worked() < postWork || srv.sess.Worked() > 2*postWork {
		t.Errorf("the POST played %g of the replay before it answered, want postWork (%d)", srv.sess.Worked(), postWork)
	}
	if again := playbackOf(t, srv); again.SeekingToS == nil || *again.SeekingToS != 2 || again.T != p.T {
		t.Fatalf("GET /api/playback during the move: %+v; want seeking_to_s 2 and t_s %g", again, p.T)
	}
	var snap struct{ Playback dash.Playback }
	if _, out := inMemory(t, srv, "GET", "/api/snapshot", ""); json.Unmarshal([]byte(out), &snap) != nil || snap.Playback.SeekingToS == nil {
		t.Fatalf("GET /api/snapshot during the move: %.300s; want its playback seeking", out)
	}
	for range 3 {
		before := playbackOf(t, srv).T
		if !srv.Tick(time.Now()) {
			t.Error("Tick during a move says no tick is due at once")
		}
		if now := playbackOf(t, srv); now.T <= before || now.SeekingToS == nil || !now.Paused {
			t.Fatalf("a tick of the move, paused: from %g s to %+v; want it on toward 2 s, still paused", before, now)
		}
	}
	code, out := inMemory(t, srv, "POST", "/api/chaos", `{"action":"kill","target":"s3"}`)
	var e struct {
		Error string
		Code  int
	}
	if err := json.Unmarshal([]byte(out), &e); code != 409 || err != nil || e.Code != 409 || !strings.Contains(e.Error, "seek") {
		t.Errorf("a drill during the move: %d %s; want a 409 JSON error naming the seek", code, out)
	}
	if p := postPlayback(t, srv, `{"restart": true}`); p.SeekingToS != nil || p.T != 0 || len(p.Drills) != 0 {
		t.Errorf("restart during the move: %+v; want at 0, no move", p)
	}
}

// A newer seek replaces the one going on: ahead of where the replay is,
// it plays on from there (no rewind); behind it, the run goes back to 0
// first. Either way it arrives where a synchronous seek does.
func TestNewerSeekReplacesTheMove(t *testing.T) {
	srv, err := New(Options{Lab: busyLab(t), Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.postWork, srv.tickWork = 0, sliceWork
	if p := postPlayback(t, srv, `{"seek_s": 2}`); p.SeekingToS == nil || p.T != 0 {
		t.Fatalf("seek_s 2 without postWork: %+v; want the move to 2 s, at 0", p)
	}
	srv.Tick(time.Now())
	srv.Tick(time.Now())
	at := playbackOf(t, srv).T
	// ahead of the replay: on from where it is
	p := postPlayback(t, srv, `{"seek_s": 0.01}`)
	if p.SeekingToS == nil || *p.SeekingToS != 0.01 || p.T != at {
		t.Fatalf("a newer seek to 0.01 s with the replay at %g s: %+v", at, p)
	}
	work := srv.sess.Worked()
	srv.Tick(time.Now())
	if now := playbackOf(t, srv).T; now <= at || srv.sess.Worked() <= work {
		t.Errorf("the tick after a newer seek ahead of the replay went from %g s to %g s (work %g to %g): want on from there, not from 0", at, now, work, srv.sess.Worked())
	}
	// behind the replay: back to 0 first
	at = playbackOf(t, srv).T
	p = postPlayback(t, srv, `{"seek_s": 0.001}`)
	if p.SeekingToS == nil || *p.SeekingToS != 0.001 || p.T != at {
		t.Fatalf("a newer seek to 0.001 s with the replay at %g s: %+v", at, p)
	}
	settle(t, srv)
	ref, err := newSession(srv.base, srv.allowed)
	if err != nil {
		t.Fatal(err)
	}
	if err := ref.Seek(seconds(0.001)); err != nil {
		t.Fatal(err)
	}
	sameState(t, "seek to 0.001 s", srv, ref)
	if srv.sess.Worked() != ref.Worked() {
		t.Errorf("the replay to 0.001 s did work %g, a seek from 0 %g: want it rewound", srv.sess.Worked(), ref.Worked())
	}
}

// A seek, a drill and a seek back again carried out in slices, a tick at
// a time, leave the session, the snapshot and the log exactly where the
// synchronous replays leave them; the drill answers its instant at once,
// the replay to it going on.
func TestSlicedSeekIsTheSeek(t *testing.T) {
	l, setting := scenarioLab(t, "retry-storm")
	srv, err := New(Options{Lab: l, Scenario: "retry-storm", Setting: setting, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.postWork, srv.tickWork = 0, 2000
	ref, err := newSession(srv.base, srv.allowed)
	if err != nil {
		t.Fatal(err)
	}

	postPlayback(t, srv, `{"seek_s": 5.5}`)
	ticks := settle(t, srv)
	if err := ref.Seek(seconds(5.5)); err != nil {
		t.Fatal(err)
	}
	sameState(t, "seek to 5.5 s", srv, ref)
	if ticks < 5 {
		t.Errorf("the seek to 5.5 s took %d ticks of %g work: want it in slices", ticks, srv.tickWork)
	}

	drill := `{"action":"errors","target":"s1","share":0.2}`
	code, out := inMemory(t, srv, "POST", "/api/chaos", drill)
	var applied dash.Applied
	if err := json.Unmarshal([]byte(out), &applied); code != 200 || err != nil || applied.AtS == nil || *applied.AtS != 5.5 {
		t.Fatalf("a drill at 5.5 s: %d %s", code, out)
	}
	if p := playbackOf(t, srv); p.SeekingToS == nil || *p.SeekingToS != 5.5 || p.T != 0 || len(p.Drills) != 1 {
		t.Fatalf("after the drill: %+v; want its replay to 5.5 s going on from 0, the drill taken", p)
	}
	settle(t, srv)
	var ev labfile.Event
	if err := json.Unmarshal([]byte(drill), &ev); err != nil {
		t.Fatal(err)
	}
	if _, err := ref.Drill(ev); err != nil {
		t.Fatal(err)
	}
	sameState(t, "a drill at 5.5 s", srv, ref)

	postPlayback(t, srv, `{"seek_s": 9}`)
	for range 20 {
		srv.Tick(time.Now())
	}
	postPlayback(t, srv, `{"seek_s": 4}`) // behind the replay, which is past 5.5 s
	settle(t, srv)
	if err := ref.Seek(seconds(4)); err != nil {
		t.Fatal(err)
	}
	sameState(t, "a seek to 9 s replaced by one to 4 s", srv, ref)
}

// stepToNextLine is step_event as lab watch played it synchronously
// before moves: bin by bin until the event log has a line more, then a
// seek to its instant.
func stepToNextLine(t *testing.T, s *sim.Session) {
	t.Helper()
	n := len(s.Log())
	for len(s.Log()) == n && !s.Ended() {
		if err := s.AdvanceTo((s.Now()/bin + 1) * bin); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.Log()) == n {
		return
	}
	if err := s.Seek(clock.Instant(math.Round(s.Log()[n].T * 1e9))); err != nil {
		t.Fatal(err)
	}
}

// step and step_event, as moves carried out in slices, reach the instant
// and the state the synchronous steps reached: in breaker, s2 fails at 5
// s, then the breakers open on it. A step during a move steps from its
// target.
func TestStepsAreMovesToTheSameInstant(t *testing.T) {
	l, _ := scenarioLab(t, "breaker")
	srv, err := New(Options{Lab: l, Scenario: "breaker", Setting: "breaker", Paused: true}) // breakers on
	if err != nil {
		t.Fatal(err)
	}
	srv.postWork, srv.tickWork = 0, 2000
	ref, err := newSession(srv.base, srv.allowed)
	if err != nil {
		t.Fatal(err)
	}
	p := postPlayback(t, srv, `{"step_event": true}`)
	if p.SeekingToS == nil || !p.SeekingEvent || !p.Paused {
		t.Fatalf("step_event answered %+v; want the move to the next line going on, paused", p)
	}
	settle(t, srv)
	stepToNextLine(t, ref)
	sameState(t, "step_event", srv, ref)
	if log := srv.sess.Log(); srv.sess.Now() != 5*clock.Instant(time.Second) || len(log) != 1 || log[0].Text != "fail s2" {
		t.Fatalf("step_event: at %v, log %v; want 5 s and fail s2", srv.sess.Now(), log)
	}
	postPlayback(t, srv, `{"step_event": true}`)
	settle(t, srv)
	stepToNextLine(t, ref)
	sameState(t, "a second step_event", srv, ref)
	if last := srv.sess.Log()[len(srv.sess.Log())-1]; !strings.HasPrefix(last.Text, "breaker s2: closed -> open") {
		t.Errorf("the second step_event: the log ends %v; want the first breaker opening on s2", last)
	}

	postPlayback(t, srv, `{"step": true}`)
	settle(t, srv)
	if err := ref.AdvanceTo((ref.Now()/bin + 1) * bin); err != nil {
		t.Fatal(err)
	}
	sameState(t, "step", srv, ref)

	// a step during a seek steps from the seek's target
	postPlayback(t, srv, `{"seek_s": 12.1}`)
	if p := postPlayback(t, srv, `{"step": true}`); p.SeekingToS == nil || *p.SeekingToS != 12.25 {
		t.Fatalf("step during a seek to 12.1 s: %+v; want the move to 12.25 s", p)
	}
	settle(t, srv)
	if err := ref.Seek(seconds(12.25)); err != nil {
		t.Fatal(err)
	}
	sameState(t, "step during a seek", srv, ref)
}

// A drill during a move is refused with 409 and takes nothing; once the
// move has arrived it applies at its target. pause_at_s before the
// target of the move going on is refused with 400, as one before the
// instant reached is.
func TestDrillDuringAMoveIsRefused(t *testing.T) {
	srv := watching(t, "rr-slow")
	srv.postWork, srv.tickWork = 0, 2000
	postPlayback(t, srv, `{"seek_s": 2}`)
	code, out := inMemory(t, srv, "POST", "/api/chaos", `{"action":"kill","target":"s3"}`)
	var e struct {
		Error string
		Code  int
	}
	if err := json.Unmarshal([]byte(out), &e); code != 409 || err != nil || e.Code != 409 || !strings.Contains(e.Error, "seek is going on (to 2 s") {
		t.Errorf("a drill during the seek to 2 s: %d %s; want 409 naming the seek", code, out)
	}
	code, out = inMemory(t, srv, "POST", "/api/playback", `{"pause_at_s": 1.5}`)
	if code != 400 || !strings.Contains(out, "pause_at_s") {
		t.Errorf("pause_at_s 1.5 during the seek to 2 s: %d %s; want 400", code, out)
	}
	if p := postPlayback(t, srv, `{"pause_at_s": 3}`); p.PauseAtS == nil || *p.PauseAtS != 3 || p.SeekingToS == nil {
		t.Errorf("pause_at_s 3 during the seek to 2 s: %+v; want it taken, the move going on", p)
	}
	settle(t, srv)
	if p := playbackOf(t, srv); p.T != 2 || len(p.Drills) != 0 {
		t.Fatalf("after the move: %+v; want at 2 s with no drill", p)
	}
	code, out = inMemory(t, srv, "POST", "/api/chaos", `{"action":"kill","target":"s3"}`)
	var applied dash.Applied
	if err := json.Unmarshal([]byte(out), &applied); code != 200 || err != nil || applied.AtS == nil || *applied.AtS != 2 {
		t.Errorf("the drill once the seek arrived: %d %s; want it at 2 s", code, out)
	}
}
