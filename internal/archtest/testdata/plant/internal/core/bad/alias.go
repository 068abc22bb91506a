package bad

import t "time"

// Nap sleeps through an aliased import.
func Nap() { t.Sleep(t.Millisecond) }
