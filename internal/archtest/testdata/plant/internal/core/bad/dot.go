package bad

import . "time"

// Deadline reads the clock through a dot import and keeps a timer.
type Deadline struct{ timer *Timer }

// Stop stops the timer: a method of a forbidden type.
func (d *Deadline) Stop() bool { return d.timer.Stop() }

var since = Since
