package server

import (
	"fmt"
	"time"

	"github.com/lblab/lblab/internal/core/limit"
	"github.com/lblab/lblab/internal/rng"
)

// Config configures one emulated server. New validates it once; the fields
// marked "at run time" can later be changed through the Server's setters.
type Config struct {
	Name             string
	Workers          int           // >= 1 (at run time: SetWorkers)
	QueueCap         int           // 0 = unbounded (at run time: SetQueue)
	LIFO             bool          // serve the newest queued first (at run time: SetQueue)
	DropExpired      bool          // discard a queued job whose Deadline passed (at run time: SetQueue)
	MaxOutstanding   int           // queued + in service; 0 = no limit
	QueueTimeout     time.Duration // 0 = none
	Speed            float64       // > 0, 1 = normal; 0 means 1 (at run time: SetSpeed)
	Work             rng.Dist      // for jobs without work; required
	GCEvery, GCPause time.Duration // periodic stop-the-world pause; GCEvery 0 = none
	Errors           float64       // share of fast 500s, [0, 1] (at run time: SetErrors)
	Fail             bool          // every job a fast 500 (at run time: SetFail)
	ErrorTime        time.Duration // default 1ms
	CacheSize        int           // LRU of keys; 0 = none
	HitFactor        float64       // cost of a cache hit as a share of work, [0, 1]
	Limit            limit.Limit   // nil = none (at run time: SetLimit)
	Seed             uint64        // the server's own random stream (rng.Split(Seed, Name)) and error draws
	// Meter: the load report measures its window's figures (utilization,
	// rps, eps: report.go); off, it gives the queue and the workers in
	// service only, and the server does no measuring. On when something
	// reads them (assemble.ServerConfig), always in the live backend,
	// whose answers anyone may ask for them.
	Meter bool
	// Probed: the server keeps the last requests it served (ProbeHistory)
	// for its probe answers' latency estimate (probe.go); off, a probe
	// answer's latency is 0. On when an algorithm probes
	// (assemble.ServerConfig), always in the live backend.
	Probed bool
}

// Defaults of Config's fields, taken when they are 0 (the lab file's
// defaults of speed and error_time are these).
const (
	DefaultSpeed     = 1                // work at the reference pace
	DefaultErrorTime = time.Millisecond // how long a fast 500 takes
)

// DefaultHitFactor is the HitFactor a lab file takes when it names none
// (cache.hit_factor): a hit costs a fifth of the work. Unlike the defaults
// above, New keeps a 0 (a free hit).
const DefaultHitFactor = 0.2

// Bounds of the settings New and the setters accept; the lab file and the
// admin APIs check against the same constants (labfile.Bounds). Speed is
// bounded because the work clock integrates speed x time in a float64: a
// huge speed overflows it and wedges the server for good; the queue and the
// cache are allocated up front at their capacity.
const (
	MaxSpeed     = 100
	MaxWorkers   = 10000
	MaxQueueCap  = 100_000
	MaxCacheSize = 1_000_000
)

// withDefaults returns cfg with zero Speed and ErrorTime replaced by their
// defaults, or an error naming the first field out of its range.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Speed == 0 {
		cfg.Speed = DefaultSpeed
	}
	if cfg.ErrorTime == 0 {
		cfg.ErrorTime = DefaultErrorTime
	}
	if err := cfg.check(); err != nil {
		return Config{}, fmt.Errorf("server %q: %w", cfg.Name, err)
	}
	return cfg, nil
}

func (cfg *Config) check() error {
	switch {
	case cfg.Workers < 1 || cfg.Workers > MaxWorkers:
		return fmt.Errorf("workers = %d, must be in [1, %d]", cfg.Workers, MaxWorkers)
	case cfg.QueueCap < 0 || cfg.QueueCap > MaxQueueCap:
		return fmt.Errorf("queue.capacity = %d, must be in [0, %d] (0 = unbounded)", cfg.QueueCap, MaxQueueCap)
	case cfg.MaxOutstanding < 0:
		return fmt.Errorf("max_outstanding = %d, must be >= 0 (0 = no limit)", cfg.MaxOutstanding)
	case cfg.QueueTimeout < 0:
		return fmt.Errorf("queue_timeout = %v, must be >= 0 (0 = none)", cfg.QueueTimeout)
	case cfg.Work == nil:
		return fmt.Errorf("work is required (the distribution for jobs that carry no work)")
	case cfg.ErrorTime < 0:
		return fmt.Errorf("error_time = %v, must be >= 0", cfg.ErrorTime)
	case cfg.CacheSize < 0 || cfg.CacheSize > MaxCacheSize:
		return fmt.Errorf("cache.size = %d, must be in [0, %d] (0 = none)", cfg.CacheSize, MaxCacheSize)
	case !(cfg.HitFactor >= 0 && cfg.HitFactor <= 1):
		return fmt.Errorf("cache.hit_factor = %g, must be in [0, 1]", cfg.HitFactor)
	}
	if err := checkSpeed(cfg.Speed); err != nil {
		return err
	}
	if err := checkShare(cfg.Errors); err != nil {
		return err
	}
	return checkGC(cfg.GCEvery, cfg.GCPause)
}

func checkSpeed(speed float64) error {
	if !(speed > 0 && speed <= MaxSpeed) {
		return fmt.Errorf("speed = %g, must be in (0, %d]", speed, MaxSpeed)
	}
	return nil
}

func checkShare(share float64) error {
	if !(share >= 0 && share <= 1) {
		return fmt.Errorf("errors = %g, must be in [0, 1]", share)
	}
	return nil
}

func checkGC(every, pause time.Duration) error {
	switch {
	case every < 0:
		return fmt.Errorf("gc.every = %v, must be >= 0 (0 = none)", every)
	case pause < 0:
		return fmt.Errorf("gc.pause = %v, must be >= 0", pause)
	case every > 0 && (pause <= 0 || pause >= every):
		return fmt.Errorf("gc.pause = %v, must be in (0, gc.every = %v) when gc.every is set", pause, every)
	}
	return nil
}
