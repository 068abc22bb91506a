package control

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
)

// SendDrill posts a drill (labfile.ParseDrill reads one from a command
// line) to the controller at addr.
func SendDrill(ctx context.Context, addr string, ev labfile.Event) (string, error) {
	var out struct {
		Applied string `json:"applied"`
	}
	if err := admin.Call(ctx, addr, "POST", dash.ChaosPath, ev, &out); err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return "", fmt.Errorf("no lab is running at %s (start one with lab up, or give its address with --lab-url): %w", addr, err)
		}
		return "", err
	}
	return out.Applied, nil
}
