// Package bad is planted code that breaks the clock-free rules, one break a
// line; archtest's TestPlanted checks each is reported at its line.
package bad

import (
	"math/rand"
	"sync"
	"time"

	"example.com/plant/internal/labfile"
	"example.com/plant/internal/sim"
)

var mu sync.Mutex

// Start reads the wall clock by a call, and by taking time.Now as a value.
func Start() time.Time {
	f := time.Now
	_ = f
	return time.Now()
}

// Spawn starts a goroutine and draws from the global generator.
func Spawn(ch chan int) {
	go func() { ch <- rand.Intn(6) }()
}

// Nested reaches the wall clock through a settings package and the
// simulator through an import.
func Nested() { labfile.Stamp(); sim.Run() }
