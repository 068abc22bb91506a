package assemble

import (
	"reflect"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/labfile"
)

// ServerSetting is a part of a lab server's settings that a running server
// takes (a set event, a settings API): the leaves under servers. it covers,
// how to read them and the core's setter that carries them out.
type ServerSetting struct {
	Name   string   // as the backend's POST /admin/set reports it
	Leaves []string // the leaves it covers, below servers. ("queue.capacity")
	get    func(labfile.Server) any
	apply  func(s *server.Server, now clock.Instant, cfg server.Config) error
}

// ServerSettings are the server settings a running server takes, each
// through the core's own setter. The simulator (a set event) and the live
// backend (POST /admin/set) both carry a change out with ApplyServer, from
// this one table; every other server setting is fixed for a run
// (labfile.FixedAtRunTime), which the tests check leaf by leaf.
var ServerSettings = []ServerSetting{
	{"speed", []string{"speed"}, func(s labfile.Server) any { return s.Speed },
		func(s *server.Server, now clock.Instant, c server.Config) error { return s.SetSpeed(now, c.Speed) }},
	{"errors", []string{"errors"}, func(s labfile.Server) any { return s.Errors },
		func(s *server.Server, now clock.Instant, c server.Config) error { return s.SetErrors(now, c.Errors) }},
	{"fail", []string{"fail"}, func(s labfile.Server) any { return s.Fail },
		func(s *server.Server, now clock.Instant, c server.Config) error { s.SetFail(now, c.Fail); return nil }},
	{"workers", []string{"workers"}, func(s labfile.Server) any { return s.Workers },
		func(s *server.Server, now clock.Instant, c server.Config) error { return s.SetWorkers(now, c.Workers) }},
	{"queue", []string{"queue.capacity", "queue.discipline", "drop_expired"},
		func(s labfile.Server) any { return [2]any{s.Queue, s.DropExpired} },
		func(s *server.Server, now clock.Instant, c server.Config) error {
			return s.SetQueue(now, c.QueueCap, c.LIFO, c.DropExpired)
		}},
	{"limiter", []string{"limiter.kind", "limiter.initial", "limiter.min", "limiter.max"},
		func(s labfile.Server) any { return s.Limiter },
		func(s *server.Server, now clock.Instant, c server.Config) error { s.SetLimit(now, c.Limit); return nil }},
	{"max_outstanding", []string{"max_outstanding"}, func(s labfile.Server) any { return s.MaxOutstanding },
		func(s *server.Server, now clock.Instant, c server.Config) error {
			return s.SetMaxOutstanding(now, c.MaxOutstanding)
		}},
	{"queue_timeout", []string{"queue_timeout"}, func(s labfile.Server) any { return s.QueueTimeout },
		func(s *server.Server, now clock.Instant, c server.Config) error {
			return s.SetQueueTimeout(now, c.QueueTimeout)
		}},
	{"error_time", []string{"error_time"}, func(s labfile.Server) any { return s.ErrorTime },
		func(s *server.Server, now clock.Instant, c server.Config) error {
			return s.SetErrorTime(now, c.ErrorTime)
		}},
	{"cache.size", []string{"cache.size"}, func(s labfile.Server) any { return s.Cache.Size },
		func(s *server.Server, now clock.Instant, c server.Config) error {
			return s.SetCacheSize(now, c.CacheSize)
		}},
	{"cache.hit_factor", []string{"cache.hit_factor"}, func(s labfile.Server) any { return s.Cache.HitFactor },
		func(s *server.Server, now clock.Instant, c server.Config) error {
			return s.SetHitFactor(now, c.HitFactor)
		}},
}

// Get reads the setting's value from a lab server.
func (ss ServerSetting) Get(s labfile.Server) any { return ss.get(s) }

// ApplyServer carries out on the running server s, at now, every
// ServerSettings entry that differs between was and is (the server's
// settings before and after a change of lab), in the table's order, and
// returns the names of those it applied. The new config is built first
// (a limiter that does not build changes nothing).
func ApplyServer(s *server.Server, now clock.Instant, lab *labfile.Lab, was, is labfile.NamedServer) ([]string, error) {
	cfg, err := ServerConfig(lab, is)
	if err != nil {
		return nil, err
	}
	applied := []string{}
	for _, ss := range ServerSettings {
		if reflect.DeepEqual(ss.get(was.Server), ss.get(is.Server)) {
			continue
		}
		if err := ss.apply(s, now, cfg); err != nil {
			return applied, err
		}
		applied = append(applied, ss.Name)
	}
	return applied, nil
}
