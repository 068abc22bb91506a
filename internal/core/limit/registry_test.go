package limit

import (
	"testing"
	"time"
)

func TestNewByKind(t *testing.T) {
	if l, err := New(Spec{}); l != nil || err != nil {
		t.Fatal("an empty kind means no limiter")
	}
	for _, k := range Kinds {
		l, err := New(Spec{Kind: k, Initial: 10, Min: 1, Max: 50, MeanService: 10 * time.Millisecond})
		if err != nil || l.Limit() != 10 {
			t.Fatalf("%s: %v %v", k, l, err)
		}
		if d, err := New(Spec{Kind: k}); err != nil || d.Limit() != DefaultInitial {
			t.Fatalf("%s with the defaults: %v %v", k, d, err)
		}
	}
	if _, err := New(Spec{Kind: "vegas"}); err == nil {
		t.Fatal("unknown limiter accepted")
	}
}
