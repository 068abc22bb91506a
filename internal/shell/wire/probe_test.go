package wire

import (
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/core/load"
)

// A probe answer round-trips through its JSON, and an answer that is not
// one is refused naming its field.
func TestProbeRoundTrips(t *testing.T) {
	for _, p := range []load.Probe{{}, {RIF: 7, Latency: 41250 * time.Microsecond}, {RIF: 1, Latency: 1}} {
		b := AppendProbe(nil, p)
		got, err := ParseProbe(b)
		if err != nil || got != p {
			t.Errorf("%+v -> %s -> %+v, %v", p, b, got, err)
		}
	}
	if s := string(AppendProbe(nil, load.Probe{RIF: 3, Latency: 41250 * time.Microsecond})); s != `{"rif":3,"latency_ms":41.25}` {
		t.Errorf("the wire form is %s", s)
	}
	for body, field := range map[string]string{
		`{"latency_ms":1}`:             "rif",
		`{"rif":1}`:                    "latency_ms",
		`{"rif":-1,"latency_ms":1}`:    "rif",
		`{"rif":1.5,"latency_ms":1}`:   "JSON",
		`{"rif":1,"latency_ms":-2}`:    "latency_ms",
		`{"rif":1,"latency_ms":1e300}`: "latency_ms",
		`not json`:                     "JSON",
	} {
		if _, err := ParseProbe([]byte(body)); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v, want an error naming %s", body, err, field)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = AppendProbe(make([]byte, 0, 64), load.Probe{RIF: 2, Latency: time.Millisecond}) }); n > 1 {
		t.Errorf("writing an answer allocates %v times", n)
	}
}
