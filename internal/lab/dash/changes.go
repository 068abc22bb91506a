package dash

import "fmt"

// changes lists the page's settings in force now that differ from those at
// the run's first reading, as "algorithm round-robin (was p2c)". A lab's
// description and narration were written for how it starts, so the
// dashboard's banner shows these next to them (after a drill switches p2c
// to round robin, "five servers behind one p2c balancer" is no longer so).
// Both lists are controlsNow's, so they hold the same settings in the same
// order.
func changes(start, now Controls) []string {
	out := []string{}
	for i, c := range now {
		if i >= len(start) || start[i].Path != c.Path {
			continue
		}
		if was, is := start[i].said(), c.said(); was != is {
			out = append(out, fmt.Sprintf("%s %s (was %s)", c.Label, is, was))
		}
	}
	return out
}

// said is the control's value as the banner says it: "none" for its off
// value, on or off for a boolean, with its unit.
func (c Control) said() string {
	switch {
	case c.Off != nil && c.Value == *c.Off:
		return "none"
	case c.Kind == "bool" && c.Value == "true":
		return "on"
	case c.Kind == "bool":
		return "off"
	}
	return c.Value + c.Unit
}
