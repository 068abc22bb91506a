package wire

import (
	"fmt"
	"log"
	"regexp"
	"strings"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"
)

// ServerLogger is the Logger of every fasthttp server of lblab's (Serve
// installs it on a server that has none, and wraps any other in it): each
// line fasthttp writes goes to log at debug level with its secrets
// redacted (Redact). fasthttp's own default writes to stderr whatever a
// request it could not parse held, an Authorization header included.
func ServerLogger(log *zap.Logger) fasthttp.Logger {
	if log == nil {
		log = zap.NewNop()
	}
	return serverLogger{printf: func(msg string) {
		if ce := log.Check(zap.DebugLevel, msg); ce != nil {
			ce.Write(zap.String("from", "fasthttp"))
		}
	}}
}

// serverLogger formats a line, redacts it and hands it on.
type serverLogger struct{ printf func(msg string) }

func (s serverLogger) Printf(format string, args ...any) {
	s.printf(Redact(fmt.Sprintf(format, args...)))
}

// redacting puts Redact in front of a Logger a server was given.
func redacting(l fasthttp.Logger) fasthttp.Logger {
	switch l := l.(type) {
	case nil:
		return ServerLogger(nil)
	case serverLogger:
		return l
	default:
		return serverLogger{printf: func(msg string) { l.Printf("%s", msg) }}
	}
}

// HTTPErrorLog is the ErrorLog of a net/http server (lab's controller):
// the server's complaints at warn level, with secrets redacted.
func HTTPErrorLog(l *zap.Logger) *log.Logger {
	if l == nil {
		l = zap.NewNop()
	}
	return log.New(redactWriter{l}, "", 0)
}

type redactWriter struct{ l *zap.Logger }

func (w redactWriter) Write(p []byte) (int, error) {
	w.l.Warn(Redact(strings.TrimSuffix(string(p), "\n")), zap.String("from", "net/http"))
	return len(p), nil
}

// Redacted replaces a secret in a log line.
const Redacted = "[redacted]"

// secretPatterns find what a log line must not show: the value of an
// Authorization, Proxy-Authorization, X-Lab-Token or Cookie header (to the
// end of its line; the raw request fasthttp quotes with %q ends a line
// with a literal \r or \n), a bearer credential anywhere, a token= query
// parameter and the lblab_token cookie. Group 1 is kept, the rest goes.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)((?:proxy-)?authorization|` + regexp.QuoteMeta(HToken) + `|cookie)((?:\s|\\t)*:(?:\s|\\t)*)[^\\\r\n"]*`),
	regexp.MustCompile(`(?i)(bearer(?:\s|\\t)+)[^\s\\"',;&]+`),
	regexp.MustCompile(`(?i)([?&;]` + TokenQuery + `=)[^\s\\"'&#]*`),
	regexp.MustCompile(`(?i)(` + TokenCookie + `=)[^\s\\"';&]*`),
}

// Redact returns s with every secret it shows replaced by [redacted]:
// header values of Authorization, Proxy-Authorization, X-Lab-Token and
// Cookie, bearer credentials, token= query parameters and the lblab_token
// cookie. Every log line a server of lblab's writes passes through it.
func Redact(s string) string {
	for i, re := range secretPatterns {
		if !re.MatchString(s) {
			continue
		}
		repl := "${1}" + Redacted
		if i == 0 {
			repl = "${1}${2}" + Redacted
		}
		s = re.ReplaceAllString(s, repl)
	}
	return s
}
