package lb

import (
	"context"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/lblab/lblab/internal/shell/pace"
)

// memLB runs an lb and one fake on in-memory listeners; stop closes all.
func memLB(t testing.TB, cfg Config, delay time.Duration) (l *LB, f *fake, hc *fasthttp.HostClient, stop func()) {
	fln, dataLn, adminLn := fasthttputil.NewInmemoryListener(), fasthttputil.NewInmemoryListener(),
		fasthttputil.NewInmemoryListener()
	f = newFake("s1", fln, quiet{}) // the lb hanging up on a timed-out request is expected
	f.delay.Store(int64(delay))
	cfg.Backends = []BackendSpec{{Name: "s1", Addr: "s1:80"}}
	cfg.Listener, cfg.AdminListener = dataLn, adminLn
	cfg.Dial = func(string) (net.Conn, error) { return fln.Dial() }
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	hc = &fasthttp.HostClient{Addr: "lb", Dial: func(string) (net.Conn, error) { return dataLn.Dial() }}
	return l, f, hc, func() {
		if err := l.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
		f.close()
		hc.CloseIdleConnections()
	}
}

// TestTimeoutInVirtualTime checks the timer arithmetic exactly: with a 5 ms
// hop each way and a 100 ms attempt timeout counted from the pick, the
// client gets its 504 after 105 ms of the bubble's fake clock.
func TestTimeoutInVirtualTime(t *testing.T) {
	// fasthttp starts its Date-header refresher, which never ends, on first
	// use; it must start outside the bubble.
	_, _, hc, stop := memLB(t, Config{Lab: testLab(t)}, 0)
	do(t, hc, "GET", "/", "")
	stop()
	synctest.Test(t, func(t *testing.T) {
		lab := testLab(t, "balancers.timeout", "100ms", "network.hop", "5ms")
		// The bubble's fake clock moves Go's timers only.
		_, f, hc, stop := memLB(t, Config{Lab: lab, Waits: pace.Runtime}, time.Second)
		start := time.Now()
		a := do(t, hc, "GET", "/", "")
		if took := time.Since(start); a.status != 504 || took != 105*time.Millisecond {
			t.Errorf("got %d after %v, want 504 after exactly 105ms", a.status, took)
		}
		time.Sleep(time.Second)
		if f.completed.Load() != 1 {
			t.Error("the server did not finish the timed-out request")
		}
		stop()
		// fasthttp's idle-connection and idle-worker cleaners sleep up to
		// 10 s before they notice they are done; let the fake clock run.
		time.Sleep(15 * time.Second)
	})
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// TestSettingsKeepTheHealthSchedule: a settings change moves no pending
// health check, as in the simulator (sim.startHealth): with checks every
// second, a set of the timeout at 0.5 s leaves the first check at 1 s (it
// used to restart the timer: 1.5 s); a new interval applies from the
// round after the pending one; turned off, the pending round does
// nothing, and turned on again before it, that round comes at its time.
func TestSettingsKeepTheHealthSchedule(t *testing.T) {
	_, _, hc, stop := memLB(t, Config{Lab: testLab(t)}, 0)
	do(t, hc, "GET", "/", "")
	stop()
	synctest.Test(t, func(t *testing.T) {
		lab := testLab(t, "balancers.health.enabled", "true", "balancers.health.interval", "1s", "network.hop", "0s")
		l, f, _, stop := memLB(t, Config{Lab: lab, Waits: pace.Runtime}, 0)
		start := time.Now()
		set := func(path, value string) {
			if err := l.change([]change{{path, path, value}}); err != nil {
				t.Fatal(err)
			}
		}
		at := func(d time.Duration, want int64, what string) {
			time.Sleep(d - time.Since(start))
			synctest.Wait()
			if n := f.checks.Load(); n != want {
				t.Errorf("at %v: %d health checks, want %d (%s)", d, n, want, what)
			}
		}
		at(500*time.Millisecond, 0, "none before the first interval")
		set("balancers.timeout", "2s")
		at(999*time.Millisecond, 0, "the first check is due at 1 s")
		at(1100*time.Millisecond, 1, "a set of the timeout moves no check")
		set("balancers.health.interval", "300ms")
		at(1999*time.Millisecond, 1, "the pending round keeps its time")
		at(2050*time.Millisecond, 2, "the pending round at 2 s")
		at(2350*time.Millisecond, 3, "then every 300 ms")
		set("balancers.health.enabled", "false")
		set("balancers.health.enabled", "true")
		at(2650*time.Millisecond, 4, "off and on again: the round pending at 2.6 s comes at its time")
		set("balancers.health.enabled", "false")
		at(3500*time.Millisecond, 4, "off: the round due at 2.9 s did nothing")
		set("balancers.health.enabled", "true")
		at(3750*time.Millisecond, 4, "on again at 3.5 s: the first round 300 ms later")
		at(3850*time.Millisecond, 5, "on again at 3.5 s: the first round at 3.8 s")
		stop()
		time.Sleep(15 * time.Second) // fasthttp's cleaners (see TestTimeoutInVirtualTime)
	})
}
