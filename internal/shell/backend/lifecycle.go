package backend

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"
)

var errClosed = errors.New("the backend is shutting down")

// closeData closes the data listener after a kill, as if the process died:
// new connections are refused. Every job ended Lost with the kill, so its
// handler resets its connection without a response; the admin listener
// stays up for a restart. The caller holds b.life.
func (b *Backend) closeData() {
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
}

// openData re-opens the data listener on the address it had after a
// restart; if it cannot, the server stays down. The caller holds b.life.
func (b *Backend) openData() error {
	if b.data == nil {
		addr := b.Addr()
		data, err := b.serve(addr, b.serveData, false)
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
