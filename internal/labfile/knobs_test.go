package labfile

import (
	"testing"
	"time"
)

// The typical part a setting declares (what the torture generator draws)
// lies inside its range, is of the range's kind and is not empty, so a
// range narrowed without its typical part fails here, not as invalid labs.
func TestTypicalWithinRange(t *testing.T) {
	n := 0
	for path, a := range Default().AllowedAt() {
		if a.Typical == nil {
			continue
		}
		n++
		ok := false
		switch r := a.Range.(type) {
		case Range[int]:
			ty, same := a.Typical.(Range[int])
			ok = same && ty.Min <= ty.Max && r.In(ty.Min) && r.In(ty.Max)
		case Range[float64]:
			ty, same := a.Typical.(Range[float64])
			ok = same && ty.Min <= ty.Max && r.In(ty.Min) && r.In(ty.Max)
		case Range[time.Duration]:
			ty, same := a.Typical.(Range[time.Duration])
			ok = same && ty.Min <= ty.Max && r.In(ty.Min) && r.In(ty.Max)
		}
		if !ok {
			t.Errorf("%s: typical %v is not a part of its range %v", path, a.Typical, a.Range)
		}
	}
	if n < 10 {
		t.Errorf("only %d settings declare a typical part", n)
	}
}
