package backend

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
)

var errClosed = errors.New("the backend is shutting down")

// Kill takes the server down as if the process died: every queued and
// in-service job ends Lost (its connection is reset without a response)
// and the data listener closes, so new connections are refused. The admin
// listener stays up for Restart.
func (b *Backend) Kill() error {
	b.life.Lock()
	defer b.life.Unlock()
	if b.closed {
		return errClosed
	}
	b.killCore()
	if b.data != nil {
		data := b.data
		b.data = nil
		b.setOpen(false)
		// Every waiting handler has its Lost reply now, so this is quick:
		// at most a hop for answers already on their way.
		if err := data.shutdown(context.Background(), nil); err != nil {
			b.log.Warn("closing the data listener", zap.Error(err))
		}
	}
	b.log.Info("killed")
	return nil
}

// Restart brings the server back up, empty, and re-opens the data listener
// on the address it had. Restarting a server that is up loses its jobs,
// as the core's Restart does.
func (b *Backend) Restart() error {
	b.life.Lock()
	defer b.life.Unlock()
	if b.closed {
		return errClosed
	}
	b.apply(func(now clock.Instant, out []server.Reply) []server.Reply {
		b.core.Restart(now)
		return out
	})
	if b.data == nil {
		addr := b.Addr()
		data, err := b.serve(addr, b.serveData, b.dataListener)
		if err != nil {
			b.killCore()
			return fmt.Errorf("re-opening the data listener on %s: %w", addr, err)
		}
		b.data = data
		b.setOpen(true)
	}
	b.log.Info("restarted")
	return nil
}
