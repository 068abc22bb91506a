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
