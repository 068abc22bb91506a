//go:build !linux

package pace

import "time"

func newAlarm() (alarm, error) { return newTimerAlarm(), nil }

// timerAlarm is the portable alarm on a Go timer: as late as Go's timers,
// for systems without a timerfd.
type timerAlarm struct{ t *time.Timer }

func newTimerAlarm() *timerAlarm {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &timerAlarm{t: t}
}

func (a *timerAlarm) set(at int64) { a.t.Reset(time.Duration(at - mono())) }

func (a *timerAlarm) wait() error {
	<-a.t.C
	return nil
}
