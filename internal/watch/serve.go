//go:build !js

package watch

import (
	"context"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/lab/webui"
	"github.com/lblab/lblab/internal/shell/wire"
)

// lab watch's own server: its listener, access guard and logger, the API
// over HTTP, the snapshot stream and the dashboard's page, which the
// page's wasm module (GOOS=js, cmd/labwasm: no listener, no process log,
// requests handed in memory to Answer, the page served as static files)
// does without, so that it links neither net/http nor fasthttp nor zap
// (through wire) nor the bundle.

type (
	access = wire.Access
	logger = *zap.Logger
)

// Handler answers the dashboard's requests over HTTP (the API, the stream
// and the page) without the listener's guard, which Serve wraps it in.
// Each route of the API is the one Answer calls (routeTable), the stream's
// its events; a request no route takes is refused as Answer refuses it
// (dash.Routes).
func (s *Server) Handler() http.Handler { return dash.Handler(s.api, webui.Handler()) }

func orNop(l logger) logger {
	if l == nil {
		return zap.NewNop()
	}
	return l
}

func (s *Server) warn(msg string, err error) { s.log.Warn(msg, zap.Error(err)) }

// Serve serves the dashboard on ln and plays the lab until ctx ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	lim := wire.AdminLimits()
	srv := &http.Server{Handler: wire.NewGuard(s.access, ln.Addr()).HTTP(s.Handler()),
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: lim.ReadTimeout, WriteTimeout: lim.WriteTimeout,
		IdleTimeout: lim.IdleTimeout, MaxHeaderBytes: 64 << 10, ErrorLog: wire.HTTPErrorLog(s.log),
		BaseContext: func(net.Listener) context.Context { return ctx }}
	logf := func(format string, args ...any) { s.log.Sugar().Warnf(format, args...) }
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(wire.Listen(ln, lim.MaxConns, logf)) }()
	t := time.NewTicker(tick)
	defer t.Stop()
	s.Tick(time.Now())
	for {
		select {
		case <-ctx.Done():
			shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = srv.Shutdown(shut)
			return nil
		case err := <-errc:
			return err
		case now := <-t.C:
			// At max the next tick starts at once, after any request of
			// the API that waits for the lock (queueLock hands it over in
			// turn); otherwise on the ticker.
			for s.Tick(now) && ctx.Err() == nil {
				now = time.Now()
			}
		}
	}
}
