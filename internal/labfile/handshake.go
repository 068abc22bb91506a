package labfile

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Handshake is what opening a connection costs (network.handshake): Rounds
// round trips of the hop it opens (TCP is 1, TLS 1.3 one more), or, when
// Rounds is 0, a Fixed duration. The zero value is free. In a lab file it
// is a whole number (round trips) or a duration.
type Handshake struct {
	Rounds int
	Fixed  time.Duration
}

// Zero reports whether opening a connection is free.
func (h Handshake) Zero() bool { return h.Rounds == 0 && h.Fixed == 0 }

// String is the lab-file text: "2" (round trips), "30ms" or "0".
func (h Handshake) String() string {
	switch {
	case h.Rounds > 0:
		return strconv.Itoa(h.Rounds)
	case h.Fixed > 0:
		return h.Fixed.String()
	}
	return "0"
}

// MarshalText writes the lab-file text (Marshal hands labs to the processes).
func (h Handshake) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText reads a whole number of round trips or a duration.
func (h *Handshake) UnmarshalText(b []byte) error {
	text := strings.TrimSpace(string(b))
	if n, err := strconv.Atoi(text); err == nil {
		*h = Handshake{Rounds: n}
		return nil
	}
	d, err := parseDuration(text)
	if err != nil {
		return fmt.Errorf("want %s, got %s", Handshake{}.Want(), Quote(text))
	}
	*h = Handshake{Fixed: d}
	return nil
}

// Want says what the field takes, for error messages.
func (Handshake) Want() string {
	return "a whole number of round trips like 2, or a duration like 30ms"
}
