package suggest

import "testing"

func TestNearest(t *testing.T) {
	algos := []string{"round-robin", "random", "least-outstanding", "p2c"}
	for _, c := range []struct {
		bad  string
		from []string
		want string
	}{
		{"round-robn", algos, "round-robin"},  // a letter missing
		{"p2cc", algos, "p2c"},                // one too many
		{"least", algos, "least-outstanding"}, // a prefix
		{"rr-slw", []string{"rr-slow", "herd"}, "rr-slow"},
		{"compre", []string{"compare", "seed"}, "compare"},
		{"z", []string{"c", "d", "n"}, ""},       // one letter is not "corrected" into another
		{"hedging", algos, ""},                   // nothing close
		{"rate", []string{"rate", "rat"}, "rat"}, // the name itself is never suggested
	} {
		if got := Nearest(c.bad, c.from); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.bad, got, c.want)
		}
	}
	if got := DidYouMean("round-robn", algos, true); got != `; did you mean "round-robin"?` {
		t.Errorf("DidYouMean quoted: %q", got)
	}
	if got := DidYouMean("zzz", algos, false); got != "" {
		t.Errorf("DidYouMean without a near name: %q", got)
	}
}
