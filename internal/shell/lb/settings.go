package lb

import (
	"fmt"
	"strings"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/state"
)

// Settings is state.Settings.
type Settings = state.Settings

// BreakerSettings is state.BreakerSettings.
type BreakerSettings = state.BreakerSettings

// OutlierSettings is state.OutlierSettings.
type OutlierSettings = state.OutlierSettings

// SlowStartSettings is state.SlowStartSettings.
type SlowStartSettings = state.SlowStartSettings

// HealthSettings is state.HealthSettings.
type HealthSettings = state.HealthSettings

// settingsIn is the body of PUT /admin/settings: every field optional,
// durations as text ("100ms").
type settingsIn struct {
	Timeout      *string      `json:"timeout"`
	Hop          *string      `json:"hop"`
	Jitter       *string      `json:"jitter"`
	Load         *string      `json:"load"`
	Refresh      *string      `json:"refresh"`
	HashOn       *string      `json:"hash_on"`
	Subset       *int         `json:"subset"`
	Aperture     *int         `json:"aperture"`
	ApertureLoad *float64     `json:"aperture_load"`
	Choices      *int         `json:"choices"`
	VNodes       *int         `json:"vnodes"`
	Epsilon      *float64     `json:"epsilon"`
	Decay        *string      `json:"decay"`
	Breaker      *breakerIn   `json:"breaker"`
	Outlier      *outlierIn   `json:"outlier"`
	SlowStart    *slowStartIn `json:"slow_start"`
	Health       *healthIn    `json:"health"`
}

type outlierIn struct {
	Enabled             *bool    `json:"enabled"`
	ConsecutiveFailures *int     `json:"consecutive_failures"`
	Interval            *string  `json:"interval"`
	BaseEjection        *string  `json:"base_ejection"`
	MaxEjection         *string  `json:"max_ejection"`
	MaxEjectionShare    *float64 `json:"max_ejection_share"`
	SuccessRateK        *float64 `json:"success_rate_k"`
	LatencyK            *float64 `json:"latency_k"`
	MinRequests         *int     `json:"min_requests"`
}

type slowStartIn struct {
	Enabled    *bool    `json:"enabled"`
	Window     *string  `json:"window"`
	Floor      *float64 `json:"floor"`
	Aggression *float64 `json:"aggression"`
}

type breakerIn struct {
	Enabled   *bool    `json:"enabled"`
	Window    *int     `json:"window"`
	Threshold *float64 `json:"threshold"`
	Open      *string  `json:"open"`
	Probes    *int     `json:"probes"`
}

type healthIn struct {
	Enabled  *bool   `json:"enabled"`
	Interval *string `json:"interval"`
	Fails    *int    `json:"fails"`
	Passes   *int    `json:"passes"`
}

// change is one lab-file assignment; field is what the caller called it.
type change struct{ field, path, value string }

func opt[T any](cs *[]change, field, path string, v *T) {
	if v != nil {
		*cs = append(*cs, change{field, path, fmt.Sprint(*v)})
	}
}

// changes lists the assignments the body asks for, in a fixed order.
func (s settingsIn) changes() []change {
	var cs []change
	opt(&cs, "timeout", "balancers.timeout", s.Timeout)
	opt(&cs, "hop", "network.hop", s.Hop)
	opt(&cs, "jitter", "network.jitter", s.Jitter)
	opt(&cs, "load", "balancers.load", s.Load)
	opt(&cs, "refresh", "balancers.refresh", s.Refresh)
	opt(&cs, "hash_on", "balancers.hash_on", s.HashOn)
	opt(&cs, "subset", "balancers.subset", s.Subset)
	opt(&cs, "aperture", "balancers.aperture", s.Aperture)
	opt(&cs, "aperture_load", "balancers.aperture_load", s.ApertureLoad)
	opt(&cs, "choices", "balancers.choices", s.Choices)
	opt(&cs, "vnodes", "balancers.vnodes", s.VNodes)
	opt(&cs, "epsilon", "balancers.epsilon", s.Epsilon)
	opt(&cs, "decay", "balancers.decay", s.Decay)
	if b := s.Breaker; b != nil {
		opt(&cs, "breaker.enabled", "balancers.breaker.enabled", b.Enabled)
		opt(&cs, "breaker.window", "balancers.breaker.window", b.Window)
		opt(&cs, "breaker.threshold", "balancers.breaker.threshold", b.Threshold)
		opt(&cs, "breaker.open", "balancers.breaker.open", b.Open)
		opt(&cs, "breaker.probes", "balancers.breaker.probes", b.Probes)
	}
	if o := s.Outlier; o != nil {
		opt(&cs, "outlier.enabled", "balancers.outlier.enabled", o.Enabled)
		opt(&cs, "outlier.consecutive_failures", "balancers.outlier.consecutive_failures", o.ConsecutiveFailures)
		opt(&cs, "outlier.interval", "balancers.outlier.interval", o.Interval)
		opt(&cs, "outlier.base_ejection", "balancers.outlier.base_ejection", o.BaseEjection)
		opt(&cs, "outlier.max_ejection", "balancers.outlier.max_ejection", o.MaxEjection)
		opt(&cs, "outlier.max_ejection_share", "balancers.outlier.max_ejection_share", o.MaxEjectionShare)
		opt(&cs, "outlier.success_rate_k", "balancers.outlier.success_rate_k", o.SuccessRateK)
		opt(&cs, "outlier.latency_k", "balancers.outlier.latency_k", o.LatencyK)
		opt(&cs, "outlier.min_requests", "balancers.outlier.min_requests", o.MinRequests)
	}
	if ss := s.SlowStart; ss != nil {
		opt(&cs, "slow_start.enabled", "balancers.slow_start.enabled", ss.Enabled)
		opt(&cs, "slow_start.window", "balancers.slow_start.window", ss.Window)
		opt(&cs, "slow_start.floor", "balancers.slow_start.floor", ss.Floor)
		opt(&cs, "slow_start.aggression", "balancers.slow_start.aggression", ss.Aggression)
	}
	if h := s.Health; h != nil {
		opt(&cs, "health.enabled", "balancers.health.enabled", h.Enabled)
		opt(&cs, "health.interval", "balancers.health.interval", h.Interval)
		opt(&cs, "health.fails", "balancers.health.fails", h.Fails)
		opt(&cs, "health.passes", "balancers.health.passes", h.Passes)
	}
	return cs
}

// ownsPath reports whether a lab path is one this process applies.
func ownsPath(path string) bool {
	return strings.HasPrefix(path, "balancers.") || path == "network.hop" || path == "network.jitter"
}

// nameField puts the request's field name in front of an error about the
// lab path it sets ("timeout: balancers.timeout: must be ..."), so the
// caller sees both the name they sent and the setting it is.
func nameField(cs []change, err error) error {
	for _, c := range cs {
		if c.field != c.path && strings.HasPrefix(err.Error(), c.path+":") {
			return fmt.Errorf("%s: %w", c.field, err)
		}
	}
	return err
}

// badInput is an error answered 400.
type badInput struct{ error }

func (e badInput) Unwrap() error { return e.error }

// change applies assignments to a copy of the lab and, if all parse and the
// lab stays valid, makes it current; otherwise nothing changes.
func (l *LB) change(cs []change) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	nl := l.lab.Clone()
	pairs := make([][2]string, len(cs))
	for i, c := range cs {
		pairs[i] = [2]string{c.path, c.value}
	}
	if err := nl.ApplyAll(pairs); err != nil {
		return badInput{nameField(cs, err)}
	}
	was := l.lab.Balancers.Algorithm
	if err := l.commit(nl); err != nil {
		return badInput{err}
	}
	l.announce(cs, was)
	return nil
}

// commit makes nl the lab and brings the pipeline in line with it through
// policy.Balancer.Reconfigure, as the simulator does: what did not change
// (load figures, breaker states, ejections, ramps) stays. Caller holds mu.
func (l *LB) commit(nl *labfile.Lab) error {
	if err := l.precheck(nl); err != nil {
		return err
	}
	if err := l.bal.Reconfigure(BalancerConfig(nl, l.cfg.Index)); err != nil {
		return err
	}
	old := l.lab
	l.lab = nl
	l.derive()
	if old.Balancers.Health.Enabled && !nl.Balancers.Health.Enabled {
		l.healAll()
	}
	kick(l.kickLoad)
	kick(l.kickCheck)
	return nil
}

// precheck finds what the pipeline cannot check itself: shared load needs
// every backend's admin address to poll.
func (l *LB) precheck(nl *labfile.Lab) error {
	if nl.Balancers.Load == labfile.SharedLoad {
		for _, b := range l.backends {
			if b.present && b.Admin == "" {
				return fmt.Errorf("load: backend %s has no admin address to poll /load from", b.Name)
			}
		}
	}
	return nil
}

// announce logs applied changes: an algorithm switch as its own kind.
func (l *LB) announce(cs []change, was string) {
	now := l.nowLocked()
	var parts []string
	for _, c := range cs {
		if c.path == "balancers.algorithm" {
			l.publish(now, "algorithm", "algorithm: "+was+" -> "+l.lab.Balancers.Algorithm)
			continue
		}
		parts = append(parts, c.path+"="+c.value)
	}
	if len(parts) > 0 {
		l.publish(now, "settings", "settings: "+strings.Join(parts, ", "))
	}
}
