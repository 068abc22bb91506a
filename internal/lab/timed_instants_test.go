package lab

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lblab/lblab/internal/lab/gather"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
)

// A time-boxed event keeps the simulator's instants live, however long the
// processes take to carry it out (a backend's kill waits about 100 ms for
// its data listener to close): its line is stamped when it is applied and
// its undo comes For after that, stamped when it is applied in turn. In a
// synctest bubble, each event here takes 100 ms of the bubble's clock.
func TestTimedEventsKeepTheirInstants(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var applied []string
		sc := &script{events: gather.NewLog(time.Now()), drive: func(_ context.Context, ev labfile.Event) error {
			applied = append(applied, ev.String())
			time.Sleep(100 * time.Millisecond)
			return nil
		}}
		r := &liveRun{lab: smallLab(t, "p2c", 10), sc: sc, ctx: context.Background()}
		ev := labfile.Event{Action: labfile.ActionKill, Target: "s1", For: 300 * time.Millisecond}
		if _, err := r.fire(r.ctx, ev, "", false); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		want := []report.LogLine{{T: 0, Text: "kill s1 for=300ms"}, {T: 0.3, Text: "restart s1 (end of kill s1 for=300ms)"}}
		got := sc.events.Snapshot()
		if len(got) != len(want) || len(applied) != 2 {
			t.Fatalf("log %v after carrying out %q, want %v", got, applied, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("line %d: %v, want %v (the event's own instant)", i, got[i], want[i])
			}
		}
	})
}
