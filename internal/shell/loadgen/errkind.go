package loadgen

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/report"
)

// errorKind names what went wrong with an exchange that got no HTTP answer,
// as a load tool's report counts it: refused, reset, timeout, TLS, DNS.
func errorKind(err error) string {
	var (
		dns     *net.DNSError
		rec     tls.RecordHeaderError
		verify  *tls.CertificateVerificationError
		alert   tls.AlertError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
		te      interface{ Timeout() bool }
	)
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return report.ErrRefused
	case errors.Is(err, fasthttp.ErrTimeout), errors.Is(err, fasthttp.ErrDialTimeout),
		errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &te) && te.Timeout():
		return report.ErrTimeout
	case errors.As(err, &dns):
		return report.ErrDNS
	case errors.As(err, &rec), errors.As(err, &verify), errors.As(err, &alert), errors.As(err, &unknown),
		errors.As(err, &host), errors.As(err, &invalid), strings.HasPrefix(err.Error(), "tls: "):
		return report.ErrTLS
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, fasthttp.ErrConnectionClosed):
		return report.ErrReset
	case errors.Is(err, fasthttp.ErrNoFreeConns):
		return report.ErrNoConn
	}
	return report.ErrOtherKind
}
