package wire

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/lblab/lblab/internal/testbin"
)

const secret = "s3cr3t-T0ken.value~+/=="

func TestRedact(t *testing.T) {
	for _, in := range []string{
		"Authorization: Bearer " + secret,
		`"GET / HTTP/1.1\r\nAuthorization: Bearer ` + secret + `\r\nX: y\r\n"`,
		`authorization:\tbearer ` + secret,
		"AUTHORIZATION:Basic " + secret,
		"Proxy-Authorization: Basic " + secret,
		"X-Lab-Token: " + secret,
		`x-lab-token:` + secret + `\r\n`,
		"Cookie: a=b; lblab_token=" + secret,
		"lblab_token=" + secret + "; other=1",
		"GET http://127.0.0.1:8000/?token=" + secret + "&x=1",
		"GET /x?a=1&token=" + secret,
		"sent bearer " + secret + " to it",
	} {
		out := Redact(in)
		if strings.Contains(out, secret) || strings.Contains(out, secret[:8]) || !strings.Contains(out, Redacted) {
			t.Errorf("Redact(%q) = %q", in, out)
		}
	}
	// What is not a secret stays as it was, the rest of a redacted line too.
	for in, want := range map[string]string{
		"error when serving connection: timeout":   "error when serving connection: timeout",
		"tokens: 3, authorization failed":          "tokens: 3, authorization failed",
		`"Authorization: Bearer x\r\nHost: a\r\n"`: `"Authorization: [redacted]\r\nHost: a\r\n"`,
		"GET /?token=abc&speed=1":                  "GET /?token=[redacted]&speed=1",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// A request fasthttp cannot parse is logged (at debug level) and answered
// 400, and neither the log nor the answer shows the token it carried:
// Serve redacts the log and keeps the request's bytes out of the errors.
// Both a server given lblab's logger and one given none (the loadgen's
// admin server had none, so fasthttp's default wrote the raw request to
// stderr) get the redacting logger.
func TestServeKeepsSecretsOutOfLogs(t *testing.T) {
	for _, given := range []string{"ServerLogger", "none", "a plain Printf logger"} {
		t.Run(given, func(t *testing.T) {
			core, logs := observer.New(zapcore.DebugLevel)
			log := zap.New(core)
			srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetBodyString("ok") }}
			var plain printfLog
			switch given {
			case "ServerLogger":
				srv.Logger = ServerLogger(log)
			case "a plain Printf logger":
				srv.Logger = &plain
			}
			ln := fasthttputil.NewInmemoryListener()
			done := Serve(srv, ln, Limits{}, nil)
			defer func() { srv.Shutdown(); <-done }()
			if given == "none" {
				if _, ok := srv.Logger.(serverLogger); !ok {
					t.Fatalf("Serve left the server with logger %T, not lblab's", srv.Logger)
				}
			}
			for _, raw := range []string{
				"GET /admin/state HTTP/1.1\r\nAuthorization: Bearer " + secret + "\r\n\r\n", // no Host
				"GET /admin/state?token=" + secret + " HTTP/1.1\r\nX-Lab-Token: " + secret + "\r\nCookie: lblab_token=" + secret + "\r\n\r\n",
				"GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer " + secret + "\r\nContent-Length: nope\r\n\r\n",
				"BAD\x01LINE " + secret + "\r\nAuthorization: Bearer " + secret + "\r\n\r\n",
			} {
				a := testbin.SendRaw(t, ln.Dial, raw)
				if a.Code != 400 || strings.Contains(a.Body, secret) {
					t.Errorf("%.50q: answered %d %q, want 400 without the token", raw, a.Code, a.Body)
				}
			}
			srv.Shutdown()
			if given == "none" {
				return // its lines go nowhere (a nop zap logger), never to stderr
			}
			var lines []string
			for _, e := range logs.All() {
				lines = append(lines, e.Message)
			}
			lines = append(lines, plain.all()...)
			if len(lines) == 0 {
				t.Fatal("nothing was logged: the test sees no log line to check")
			}
			for _, l := range lines {
				if strings.Contains(l, secret) || strings.Contains(l, secret[:8]) {
					t.Errorf("the token is in the log: %q", l)
				}
			}
		})
	}
}

// printfLog is a fasthttp.Logger that keeps its lines.
type printfLog struct {
	mu    sync.Mutex
	lines []string
}

func (p *printfLog) Printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines = append(p.lines, strings.TrimSpace(strconv.Quote(fmt.Sprintf(format, args...))))
}

func (p *printfLog) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.lines...)
}

// Every fasthttp server of lblab's (the lb's, the backend's and the
// loadgen's, data and admin listeners alike) is served through Serve,
// which puts the redacting logger on it: no code outside this package
// calls a fasthttp server's Serve or ListenAndServe methods, or fasthttp's
// package-level servers, itself. (Tests may: their servers are fakes.)
func TestEveryFasthttpServerGoesThroughServe(t *testing.T) {
	root := moduleRoot(t)
	serving := map[string]bool{"Serve": true, "ServeTLS": true, "ServeTLSEmbed": true, "ServeConn": true,
		"ListenAndServe": true, "ListenAndServeTLS": true, "ListenAndServeTLSEmbed": true, "ListenAndServeUNIX": true}
	fset := token.NewFileSet()
	var servers, files int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		name := fasthttpName(f)
		if name == "" {
			return nil
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if sel, ok := n.Type.(*ast.SelectorExpr); ok && isPkg(sel.X, name) && sel.Sel.Name == "Server" {
					servers++
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || !serving[sel.Sel.Name] || isPkg(sel.X, "wire") || filepath.Dir(rel) == filepath.Join("internal", "shell", "wire") {
					return true
				}
				// fasthttp.ListenAndServe(...) or srv.Serve(ln) in a file
				// that uses fasthttp: a server served past Serve.
				t.Errorf("%s: %s.%s serves a fasthttp server without wire.Serve (which redacts its log)", fset.Position(n.Pos()), exprText(sel.X), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if servers < 4 || files < 4 {
		t.Fatalf("found %d fasthttp.Server literals in %d files: the walk missed the processes' servers", servers, files)
	}
}

// fasthttpName is the name a file imports fasthttp under ("" = it does not).
func fasthttpName(f *ast.File) string {
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == "github.com/valyala/fasthttp" {
			if im.Name != nil {
				return im.Name.Name
			}
			return "fasthttp"
		}
	}
	return ""
}

func isPkg(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprText(e.X) + "." + e.Sel.Name
	}
	return "?"
}

// moduleRoot is the directory of go.mod above the test's package.
func moduleRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
	}
	t.Fatal("no go.mod above the test")
	return ""
}
