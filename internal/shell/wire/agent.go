package wire

import "strconv"

// HAProxy's agent check (docs/admin-api-backend.md, "The agent check"):
// HAProxy opens a TCP connection to the server's agent port every
// agent-inter and reads one line, words separated by spaces; the backend
// writes its line at once and closes. The weight is load.Agent's
// percentage; "drain" is added while the backend is leaving (lame duck),
// which HAProxy shows as DRAIN and sends no new request to. A leaving
// backend never comes back, so no "ready" is needed to undo it.

// AgentAnswer is the backend's line to HAProxy's agent check: "P%\n", or
// "drain P%\n" while it leaves.
func AgentAnswer(percent int, leaving bool) []byte {
	var b []byte
	if leaving {
		b = append(b, "drain "...)
	}
	b = strconv.AppendInt(b, int64(percent), 10)
	return append(b, "%\n"...)
}
