package dash

import (
	"fmt"
	"strconv"
)

// changes lists the settings in force now that differ from those at the
// run's first reading, as "algorithm round-robin (was p2c)". A lab's
// description and narration were written for how it starts, so the
// dashboard's banner shows these next to them (after a drill switches p2c
// to round robin, "five servers behind one p2c balancer" is no longer so).
func changes(start, now Settings) []string {
	out := []string{}
	add := func(what, was, is string) {
		if was != is {
			out = append(out, fmt.Sprintf("%s %s (was %s)", what, is, was))
		}
	}
	add("algorithm", start.Algorithm, now.Algorithm)
	add("rate", fmt.Sprintf("%g/s", float64(start.Rate)), fmt.Sprintf("%g/s", float64(now.Rate)))
	add("retries", strconv.Itoa(start.Retries), strconv.Itoa(now.Retries))
	add("retry budget", orNone(fmt.Sprintf("%g", float64(start.Budget)), "0"), orNone(fmt.Sprintf("%g", float64(now.Budget)), "0"))
	add("hedging", orNone(start.Hedge, ""), orNone(now.Hedge, ""))
	add("timeout", orNone(fmt.Sprintf("%gms", float64(start.TimeoutMs)), "0ms"), orNone(fmt.Sprintf("%gms", float64(now.TimeoutMs)), "0ms"))
	add("breakers", onOff(start.Breaker), onOff(now.Breaker))
	add("queue capacity", orNone(strconv.Itoa(start.QueueCapacity), "0"), orNone(strconv.Itoa(now.QueueCapacity), "0"))
	add("queue", start.Discipline, now.Discipline)
	add("drop expired", onOff(start.DropExpired), onOff(now.DropExpired))
	add("limiter", orNone(start.Limiter, ""), orNone(now.Limiter, ""))
	return out
}

// orNone writes a setting's off value as "none".
func orNone(v, off string) string {
	if v == off {
		return "none"
	}
	return v
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
