package loadgen

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/stats"
)

// Each way an exchange fails without an HTTP answer has its kind, as the
// errors reach the loadgen (wrapped by net and fasthttp).
func TestErrorKinds(t *testing.T) {
	op := func(err error) error {
		return &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", err)}
	}
	for err, want := range map[error]string{
		&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}: report.ErrRefused,
		op(syscall.ECONNRESET):                report.ErrReset,
		op(syscall.EPIPE):                     report.ErrReset,
		io.EOF:                                report.ErrReset,
		fasthttp.ErrConnectionClosed:          report.ErrReset,
		fasthttp.ErrTimeout:                   report.ErrTimeout,
		fasthttp.ErrDialTimeout:               report.ErrTimeout,
		op(os.ErrDeadlineExceeded):            report.ErrTimeout,
		tls.RecordHeaderError{Msg: "not TLS"}: report.ErrTLS,
		fmt.Errorf("dial: %w", x509.UnknownAuthorityError{}): report.ErrTLS,
		errors.New("tls: handshake failure"):                 report.ErrTLS,
		&net.DNSError{Err: "no such host", Name: "nope"}:     report.ErrDNS,
		fasthttp.ErrNoFreeConns:                              report.ErrNoConn,
		errors.New("something else"):                         report.ErrOtherKind,
	} {
		if got := errorKind(err); got != want {
			t.Errorf("%v: kind %q, want %q", err, got, want)
		}
	}
}

// Why the generator fell behind, from what it measured: its own CPU, the
// machine's run queue, every connection busy (too few for the rate, or a
// stalled service), or none of these.
func TestBehindCause(t *testing.T) {
	slow := stats.NewHistogram()
	for range 100 {
		slow.Record(50 * time.Millisecond)
	}
	stall := stats.NewHistogram()
	for i := range 100 {
		stall.Record(time.Duration(1+99*(i/99)) * time.Millisecond) // 1 ms, and one 100 ms stall
	}
	second := usage{wall: time.Second, cores: 2}
	for _, c := range []struct {
		name    string
		use     usage
		held    uint64
		service *stats.Histogram
		cause   string
		says    string
	}{
		{"own CPU", usage{cpu: 1800 * time.Millisecond, wall: time.Second, cores: 2}, 50, slow, "cpu", "more cores"},
		{"run queue", usage{cpu: 100 * time.Millisecond, wait: 300 * time.Millisecond, wall: time.Second, cores: 2}, 50, slow, "scheduling", "waited 300ms for a CPU"},
		{"too few connections", second, 50, slow, "connections", "give --connections 40 or more"},
		{"a stalled service", second, 50, stall, "connections", "the service stalled"},
		{"none of these", second, 0, slow, "scheduling", "did not run it on time"},
	} {
		l := &loop{cfg: Config{Connections: 4}, capHits: c.held}
		tg := &target{l: l, eps: make([]*endpoint, 1), service: c.service}
		ld := &report.Load{Rate: 400}
		ld.Generator.CPU = c.use.share()
		cause, advice := tg.behindCause(ld, c.use)
		if cause != c.cause || !strings.Contains(advice, c.says) {
			t.Errorf("%s: %s: %s; want %s saying %q", c.name, cause, advice, c.cause, c.says)
		}
	}
}
