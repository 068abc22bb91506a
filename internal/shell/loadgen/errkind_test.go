package loadgen

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/report"
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
