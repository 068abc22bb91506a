package pace

import (
	"errors"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// timerfd is the precise alarm: a CLOCK_MONOTONIC timerfd, armed at an
// absolute instant and read through Go's netpoller, which hands its
// readiness over as soon as the kernel's hrtimer fires.
//
// The read also carries a deadline at the same instant, a Go timer: when
// every processor is busy the scheduler polls the network only when a
// processor runs out of work or every 10 ms (sysmon), but it runs due timers
// at every scheduling point. Whichever notices first ends the wait, so the
// alarm is never later than Go's timers.
type timerfd struct {
	f      *os.File
	rc     syscall.RawConn
	fd     int
	offset int64 // CLOCK_MONOTONIC minus mono
	margin int64 // the offset's uncertainty, with room to spare
	armed  atomic.Int64
	first  bool // wait's first call of read
	buf    [8]byte
	read   func(fd uintptr) bool
}

func newAlarm() (alarm, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("timerfd_create", err)
	}
	off, width, err := monoOffset()
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "pace-timerfd") // non-blocking: registered with the netpoller
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	a := &timerfd{f: f, rc: rc, fd: fd, offset: off, margin: width + 20_000}
	a.read = a.readOnce
	return a, nil
}

// monoOffset measures CLOCK_MONOTONIC - mono: both count the same clock
// (Go's monotonic readings are CLOCK_MONOTONIC), so the difference is a
// constant, taken from the tightest of a few bracketed readings (width: the
// bracket, a bound on its error).
func monoOffset() (off, width int64, err error) {
	width = 1 << 62
	for range 5 {
		var ts unix.Timespec
		t0 := mono()
		if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
			return 0, 0, os.NewSyscallError("clock_gettime", err)
		}
		t1 := mono()
		if w := t1 - t0; w < width {
			width, off = w, ts.Nano()-(t0+t1)/2
		}
	}
	return off, width, nil
}

func (a *timerfd) set(at int64) {
	a.armed.Store(at)          // before the timer can fire: see readOnce
	abs := max(at+a.offset, 1) // 0 would disarm it; 1 ns after boot is past
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(abs)}
	// A failure here (it cannot fail for a valid fd and value) would leave
	// the loop waiting for an earlier setting or a later one: no wait ends
	// early, and the next set repairs it.
	_ = unix.TimerfdSettime(a.fd, unix.TFD_TIMER_ABSTIME, &spec, nil)
	_ = a.f.SetReadDeadline(base.Add(time.Duration(at)))
}

// wait parks in the netpoller until the timerfd is readable, then reads its
// expiry count (which clears it).
func (a *timerfd) wait() error {
	a.first = true
	if err := a.rc.Read(a.read); !errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	return nil
}

// readOnce is RawRead's callback: true once the timerfd has been read.
// The first call, made after the poller forgot any earlier readiness,
// skips the read (a system call bound to find nothing) when the armed
// instant is still ahead: the expiry, and its readiness, come later. Any
// set since has stored its instant before arming, so a load that misses
// it came before that expiry too.
func (a *timerfd) readOnce(fd uintptr) bool {
	if a.first {
		a.first = false
		if mono() < a.armed.Load()-a.margin {
			return false
		}
	}
	_, err := unix.Read(int(fd), a.buf[:])
	return err != unix.EAGAIN
}
