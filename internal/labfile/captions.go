package labfile

import "time"

// Caption is one of a lab's timed captions: what to look at from At on,
// shown as the run's clock (virtual or wall) passes it.
type Caption struct {
	At   time.Duration `yaml:"at"`
	Text string        `yaml:"text"`
}

// validateCaptions checks captions[]: in time order, with a text. One at
// or after the end of the lab is allowed and never shown, so that a
// shorter --duration does not make a lab invalid.
func validateCaptions(l *Lab, r *reporter) {
	for i, c := range l.Captions {
		p := IndexPath("captions", i)
		switch {
		case c.At < 0:
			r.add(p+".at", "must be >= 0, got %v", c.At)
		case i > 0 && c.At < l.Captions[i-1].At:
			r.add(p+".at", "captions must be in time order: %v comes after %v (captions[%d])", c.At, l.Captions[i-1].At, i-1)
		}
		if c.Text == "" {
			r.add(p+".text", "is empty: say what to look at from %v on", c.At)
		}
		checkText(r, p+".text", c.Text, MaxTextLen, true)
	}
}
