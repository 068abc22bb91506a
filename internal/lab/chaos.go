package lab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lblab/lblab/internal/labfile"
)

// ParseDrill turns `ACTION [TARGET] [key=value...]` into a drill (a script
// event): keys are speed, pause, share, rate, algorithm, for (a time box:
// for=30s), and any dotted lab path for action set (clients.budget=0.1).
// It reads back what labfile.Event.String writes.
func ParseDrill(args []string) (labfile.Event, error) {
	if len(args) == 0 {
		return labfile.Event{}, fmt.Errorf("give an action: %s", strings.Join(labfile.ActionNames(), ", "))
	}
	action := labfile.Action(args[0])
	if !slices.Contains(labfile.Actions, action) {
		return labfile.Event{}, fmt.Errorf("unknown action %q: use one of %s", args[0], strings.Join(labfile.ActionNames(), ", "))
	}
	ev := labfile.Event{Action: action}
	for _, a := range args[1:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			if ev.Target != "" {
				return ev, fmt.Errorf("%q: give settings as key=value", a)
			}
			ev.Target = a
			continue
		}
		if err := setDrillField(&ev, k, v); err != nil {
			return ev, err
		}
	}
	return ev, nil
}

func setDrillField(ev *labfile.Event, k, v string) error {
	var err error
	switch k {
	case "speed":
		ev.Speed, err = strconv.ParseFloat(v, 64)
	case "share":
		ev.Share, err = strconv.ParseFloat(v, 64)
	case "rate":
		ev.Rate, err = strconv.ParseFloat(v, 64)
	case "pause":
		ev.Pause, err = time.ParseDuration(v)
	case "for":
		ev.For, err = time.ParseDuration(v)
	case "algorithm":
		ev.Algorithm = v
	default:
		if !strings.Contains(k, ".") {
			return fmt.Errorf("unknown setting %q: use speed, pause, share, rate, algorithm, for or a dotted lab path", k)
		}
		if ev.Set == nil {
			ev.Set = map[string]string{}
		}
		ev.Set[k] = v
	}
	if err != nil {
		return fmt.Errorf("%s=%s: %v", k, v, err)
	}
	return nil
}

// SendDrill posts a drill to the controller at addr.
func SendDrill(ctx context.Context, addr string, ev labfile.Event) (string, error) {
	var out struct {
		Applied string `json:"applied"`
	}
	if err := call(ctx, addr, "POST", "/api/chaos", ev, &out); err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return "", fmt.Errorf("no lab is running at %s (start one with lab up, or give its address with --lab-url): %w", addr, err)
		}
		return "", err
	}
	return out.Applied, nil
}
