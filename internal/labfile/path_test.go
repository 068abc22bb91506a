package labfile

import (
	"regexp"
	"strconv"
	"testing"
)

// parseSegment and generalize are written out instead of regular
// expressions (so the page's wasm module links no regexp); they take and
// refuse what the expressions did.
func TestPathStepsAsTheRegularExpressions(t *testing.T) {
	segmentRE := regexp.MustCompile(`^([a-z_]+)(?:\[(\d{1,6})\])?$`)
	for _, p := range []string{"", "clients", "slow_start", "servers[0]", "servers[12]", "servers[123456]",
		"servers[1234567]", "servers[]", "servers[", "servers]", "servers[1", "servers[1]x", "servers[1][2]",
		"[1]", "Servers", "a-b", "a1", "servers[x]", "servers[-1]", "servers[ 1]", "_", "a[0001]", "é"} {
		got, ok := parseSegment(p)
		m := segmentRE.FindStringSubmatch(p)
		want := segment{index: -1}
		if m != nil {
			want.name = m[1]
			if m[2] != "" {
				want.index, _ = strconv.Atoi(m[2])
			}
		}
		if ok != (m != nil) || ok && got != want {
			t.Errorf("%q: %+v %v, want %+v %v", p, got, ok, want, m != nil)
		}
	}
	groupIndex := regexp.MustCompile(`^servers\[\d+\]`)
	for _, p := range []string{"servers[0].speed", "servers[12]", "servers[].speed", "servers[x].speed", "servers.speed",
		"clients.rate", "xservers[0].speed", "servers[0", "servers[3]servers[4]", "servers[1].queue.capacity", ""} {
		if got, want := generalize(p), groupIndex.ReplaceAllString(p, "servers"); got != want {
			t.Errorf("generalize(%q) = %q, want %q", p, got, want)
		}
	}
}
