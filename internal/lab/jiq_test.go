package lab

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/gather"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Join-the-idle-queue live: two lbs balancing with jiq in front of real
// backends. The lab tells each backend the lbs; a backend whose reply
// leaves it idle announces itself to one lb (POST /admin/idle after the
// hop), the lbs take every announcement into their idle queues, and many
// of their picks take an idle backend off the queue. GET
// /admin/idle-queue answers the queue; an announcement of a backend the lb
// does not have is a 400 naming it.
func TestJIQAnnouncementsRealBackends(t *testing.T) {
	ctx := ctxFor(t, 90*time.Second)
	lab := smallLab(t, "jiq", 2)
	for _, kv := range [][2]string{{"balancers.count", "2"}, {"servers[0].count", "4"}, {"servers[0].workers", "1"},
		{"clients.rate", "100"}, {"balancers.jiq.join", "shortest"}} {
		if err := lab.Apply(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := lab.Validate(); err != nil {
		t.Fatal(err)
	}
	f, err := startFleet(ctx, lab, testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.stop()
	run, _ := runLoadgen(t, ctx, f)
	if run.Requests < 100 || run.Succeeded != run.Requests {
		t.Fatalf("%d requests, %d succeeded", run.Requests, run.Succeeded)
	}
	lbs := f.balancers()
	var sent, received, fromQueue, picks uint64
	deadline := time.Now().Add(5 * time.Second)
	for { // the last announcements come after the last answers
		sent, received, fromQueue, picks = 0, 0, 0, 0
		for _, b := range f.servers() {
			var bs state.Backend
			if err := admin.Call(ctx, b.Ready.Admin, "GET", "/admin/state", nil, &bs); err != nil {
				t.Fatal(err)
			}
			if bs.Idle == nil || len(bs.Idle.Balancers) != 2 || bs.Idle.Failed != 0 || bs.Idle.Dropped != 0 {
				t.Fatalf("%s's idle announcements %+v, want the 2 lbs and none failed or dropped", b.Name, bs.Idle)
			}
			sent += bs.Idle.Sent
		}
		for _, l := range lbs {
			var st state.LB
			if err := admin.Call(ctx, l.Ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
				t.Fatal(err)
			}
			if st.Idle == nil {
				t.Fatalf("%s shows no idle queue: %+v", l.Name, st)
			}
			received += st.Idle.Received
			fromQueue += st.Idle.FromQueue
			picks += st.Picks
		}
		if sent == received || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%d requests: %d announcements sent, %d received; %d of %d picks from an idle queue", run.Requests, sent, received, fromQueue, picks)
	// at 100 of about 500 requests/s of capacity, most replies leave a backend idle
	if sent != received || sent < run.Attempts/3 || sent > run.Attempts {
		t.Fatalf("%d announcements sent, %d received over %d attempts: want every one received, at most one an attempt", sent, received, run.Attempts)
	}
	if fromQueue < picks/3 {
		t.Errorf("%d of %d picks took an idle backend off a queue, want a third at least", fromQueue, picks)
	}
	figures := gather.Announcements(gather.ReadStates(ctx, f.servers(), lbs, zap.NewNop()), run.Requests)
	if figures.Sent != sent || figures.Picks != picks || figures.FromQueue != fromQueue || figures.PerRequest <= 0 {
		t.Errorf("the report's announcements %+v, want %d sent, %d of %d picks", figures, sent, fromQueue, picks)
	}

	// By hand: the queue, and an announcement of a backend lb1 does not have.
	var q state.IdleQueue
	if err := admin.Call(ctx, lbs[0].Ready.Admin, "GET", wire.IdleQueuePath, nil, &q); err != nil || q.Length != len(q.Queue) || q.Length > 4 {
		t.Errorf("GET %s: %+v, %v: want at most the 4 backends, each once", wire.IdleQueuePath, q, err)
	}
	err = admin.Call(ctx, lbs[0].Ready.Admin, "POST", wire.IdlePath, wire.IdleAnnouncement{Server: "s9"}, nil)
	if se, ok := errors.AsType[*admin.StatusError](err); !ok || se.Code != 400 || !strings.Contains(se.Msg, `"s9"`) {
		t.Errorf("POST %s for s9: %v, want a 400 naming s9", wire.IdlePath, err)
	}
}
