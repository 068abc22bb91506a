package labfile

import (
	"reflect"
	"testing"
	"time"
)

func TestMarshalRoundTrips(t *testing.T) {
	lab := Default()
	if err := lab.Apply("clients.hedge", "p95"); err != nil {
		t.Fatal(err)
	}
	lab.Events = []Event{{At: 2 * time.Second, Action: "slow", Target: "s2", Speed: 0.25}}
	lab.Compare = []Setting{{Name: "b", Set: map[string]string{"clients.budget": "0.1"}}}
	data, err := lab.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("round-trip.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if !reflect.DeepEqual(lab, back) {
		t.Fatalf("round trip changed the lab:\n%s", data)
	}
}
