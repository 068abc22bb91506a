package state

import "github.com/lblab/lblab/internal/labfile"

// SettingsOf is the settings part of the balancer's GET /admin/state for
// lab: what a live balancer of lab reports, and what the virtual dashboard
// shows for the simulator's balancers.
func SettingsOf(lab *labfile.Lab) Settings {
	b, br, h := lab.Balancers, lab.Balancers.Breaker, lab.Balancers.Health
	o, ss := b.Outlier, b.SlowStart
	return Settings{Timeout: b.Timeout.String(), Hop: lab.Network.Hop.String(), Jitter: lab.Network.Jitter.String(),
		Load: string(b.Load), Refresh: b.Refresh.String(), HashOn: string(b.HashOn), Subset: b.Subset, Aperture: b.Aperture, ApertureLoad: b.ApertureLoad,
		Choices: b.Choices, VNodes: b.VNodes, Epsilon: b.Epsilon, Decay: b.Decay.String(),
		Breaker: BreakerSettings{Enabled: br.Enabled, Window: br.Window, Threshold: br.Threshold,
			Open: br.Open.String(), Probes: br.Probes},
		Outlier: OutlierSettings{Enabled: o.Enabled, ConsecutiveFailures: o.ConsecutiveFailures,
			Interval: o.Interval.String(), BaseEjection: o.BaseEjection.String(), MaxEjection: o.MaxEjection.String(),
			MaxEjectionShare: o.MaxEjectionShare, SuccessRateK: o.SuccessRateK, LatencyK: o.LatencyK,
			MinRequests: o.MinRequests},
		SlowStart: SlowStartSettings{Enabled: ss.Enabled, Window: ss.Window.String(), Floor: ss.Floor,
			Aggression: ss.Aggression},
		Health: HealthSettings{Enabled: h.Enabled, Interval: h.Interval.String(), Fails: h.Fails, Passes: h.Passes}}
}
