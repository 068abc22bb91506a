// Package suggest finds, for a misspelled name, the nearest name that
// exists: lab-file fields and words, flags, commands, scenarios, settings.
// Every "did you mean" of lblab comes from Nearest, so a typo is judged the
// same way wherever it is made.
package suggest

import (
	"fmt"
	"strings"
)

// maxDistance is the largest edit distance still taken for a typo.
const maxDistance = 2

// Nearest returns the name of allowed closest to bad, or "" when none is
// close: an edit distance of at most 2 and less than bad's length (so a
// one-letter typo is not "corrected" into any other letter), or (for 3
// bytes or more) a prefix of it either way. Of names equally close, the
// first listed wins.
func Nearest(bad string, allowed []string) string {
	best, bestD := "", maxDistance+1
	for _, a := range allowed {
		if a == bad {
			continue
		}
		d := Distance(bad, a)
		if len(bad) >= 3 && (strings.HasPrefix(a, bad) || strings.HasPrefix(bad, a)) && d > 1 {
			d = maxDistance
		}
		if d >= len(bad) {
			continue
		}
		if d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

// DidYouMean is "; did you mean X?" for the name of allowed nearest to bad
// (quoted when quote is set), or "" when none is close.
func DidYouMean(bad string, allowed []string, quote bool) string {
	s := Nearest(bad, allowed)
	switch {
	case s == "":
		return ""
	case quote:
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return "; did you mean " + s + "?"
}

// Distance is the Levenshtein distance between a and b (bytes); names over
// 64 bytes are far from everything.
func Distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
