package backend

import (
	"encoding/json"
	"testing"

	"github.com/lblab/lblab/internal/shell/wire"
)

// appendReply writes what encoding/json writes, byte for byte.
func TestAppendReplyIsEncodingJSON(t *testing.T) {
	replies := []wire.Reply{
		{},
		{Server: "s1", Attempt: "first", Status: 200, QueueMs: 0, ServiceMs: 0.001},
		{Server: "s1", Request: "42", Attempt: "retry", Status: 503, Reason: "queue-full", QueueMs: 12.5, ServiceMs: 1e21, CacheHit: true},
		{Server: "s<2>&", Balancer: "lb1", Request: "a\"b\\c\n\t\x01é\u2028", Attempt: "hedge", Status: 500,
			Reason: "fault", QueueMs: 1e-7, ServiceMs: -3.25},
		{Server: "x", Attempt: "probe", Status: 200, QueueMs: 123456789.123, ServiceMs: 5e-324},
	}
	for _, r := range replies {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendReply(nil, &r); string(got) != string(want) {
			t.Errorf("appendReply(%+v)\n got %s\nwant %s", r, got, want)
		}
	}
}

func BenchmarkAppendReply(b *testing.B) {
	r := wire.Reply{Server: "s1", Request: "123456", Attempt: "first", Status: 200, QueueMs: 0.012, ServiceMs: 10.5}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = appendReply(buf[:0], &r)
	}
}
