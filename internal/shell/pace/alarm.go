package pace

// alarm wakes the loop at an instant. set may be called from any goroutine
// while wait blocks in the loop's; a set for an instant already past makes
// wait return at once. A wait may also return early (a superseded set):
// the loop looks at its heap again either way.
type alarm interface {
	set(at int64) // arm at instant at (mono), replacing the previous setting
	wait() error  // block until the armed instant has passed
}
