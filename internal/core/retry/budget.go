package retry

import (
	"fmt"
	"math"
)

// unit is the budget's fixed-point scale: tokens are counted in billionths,
// so ten deposits of 0.1 make exactly one token (float sums would fall short).
const unit = 1_000_000_000

// Budget is a retry budget: a token bucket in which every request deposits
// Ratio tokens and every retry spends one, holding at most
//
//	capacity = max(10, 100 × Ratio)
//
// tokens, and starting full. Over any run, retries <= Ratio × requests +
// capacity, so retries add at most Ratio extra load in the long run however
// badly the servers fail; the capacity lets a short burst of failures be
// retried in full. After Finagle's RetryBudget (a deposit per request, a
// withdrawal per retry, a minimum reserve) and Envoy's retry budget
// (retries as a share of active requests).
//
// Deposit once per original request, not per retry. Ratio is rounded to a
// billionth of a token. Not safe for concurrent use; the driver serializes calls.
type Budget struct {
	ratio    int64 // tokens per deposit, in units
	capacity int64 // in units
	tokens   int64 // in units, 0 <= tokens <= capacity
}

// NewBudget returns a full budget that refills ratio tokens per request;
// ratio must be in (0, 1].
func NewBudget(ratio float64) (*Budget, error) {
	if !(ratio > 0 && ratio <= 1) {
		return nil, fmt.Errorf("retry: budget ratio is %g, must be in (0, 1]", ratio)
	}
	r := max(int64(math.Round(ratio*unit)), 1)
	c := max(10*unit, 100*r)
	return &Budget{ratio: r, capacity: c, tokens: c}, nil
}

// Deposit adds Ratio tokens for one request, up to the capacity.
func (b *Budget) Deposit() { b.tokens = min(b.capacity, b.tokens+b.ratio) }

// Withdraw spends one token for a retry and reports whether there was one;
// false means the retry must not be sent (the request fails).
func (b *Budget) Withdraw() bool {
	if b.tokens < unit {
		return false
	}
	b.tokens -= unit
	return true
}

// Tokens returns the tokens in the bucket.
func (b *Budget) Tokens() float64 { return float64(b.tokens) / unit }

// Capacity returns max(10, 100 × Ratio), the most tokens the bucket holds.
func (b *Budget) Capacity() float64 { return float64(b.capacity) / unit }
