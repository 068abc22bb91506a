package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

func ms(x float64) clock.Instant { return clock.Instant(x * float64(time.Millisecond)) }

func dms(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }

// rig drives one server like the simulator: it wakes only at NextDeadline.
type rig struct {
	t   *testing.T
	s   *Server
	log []Reply // every reply, in delivery order
}

func newRig(t *testing.T, cfg Config) *rig {
	t.Helper()
	if cfg.Work == nil {
		cfg.Work = rng.Constant{Value: 10 * time.Millisecond}
	}
	if cfg.Workers == 0 {
		cfg.Workers = 1
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &rig{t: t, s: s}
}

// until wakes the server at each deadline up to and including at, checking
// that whatever Advance returns at a wake-up is due exactly then.
func (r *rig) until(at clock.Instant) {
	r.t.Helper()
	for {
		d, ok := r.s.NextDeadline()
		if !ok || d > at {
			return
		}
		n := len(r.log)
		r.log = r.s.Advance(d, r.log)
		for _, rep := range r.log[n:] {
			if rep.At > d {
				r.t.Fatalf("Advance(%v) returned %+v, due later", d, rep)
			}
		}
	}
}

// arrive runs the server up to at, offers a job and returns its immediate
// replies.
func (r *rig) arrive(at clock.Instant, id uint64, work time.Duration, mod ...func(*Job)) []Reply {
	r.t.Helper()
	r.until(at)
	j := Job{ID: id, Work: work}
	for _, m := range mod {
		m(&j)
	}
	n := len(r.log)
	r.log = r.s.Arrive(at, j, r.log)
	return r.log[n:]
}

// show renders replies compactly: "id:status/reason@ms q=ms s=ms".
func show(rs []Reply) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%d:%v", r.ID, r.Status)
		if r.Reason != "" {
			fmt.Fprintf(&b, "/%s", r.Reason)
		}
		fmt.Fprintf(&b, "@%g", r.At.Duration().Seconds()*1000)
		if r.Queue != 0 || r.Service != 0 {
			fmt.Fprintf(&b, " q=%g s=%g", r.Queue.Seconds()*1000, r.Service.Seconds()*1000)
		}
		if r.Hit {
			b.WriteString(" hit")
		}
	}
	return b.String()
}

func (r *rig) expect(want string) {
	r.t.Helper()
	if got := show(r.log); got != want {
		r.t.Fatalf("replies:\n got %s\nwant %s", got, want)
	}
}
