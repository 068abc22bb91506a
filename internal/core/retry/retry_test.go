package retry

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/rng"
)

const ms = time.Millisecond

func TestDelayNoJitter(t *testing.T) {
	b := Backoff{Base: 100 * ms}
	for _, tc := range []struct {
		retry int
		want  time.Duration
	}{
		{0, 0}, {-3, 0}, {1, 100 * ms}, {2, 200 * ms}, {3, 400 * ms}, {4, 800 * ms},
		{7, 6400 * ms}, {8, 10 * time.Second}, {9, 10 * time.Second},
	} {
		if got := b.Delay(tc.retry, 0.5); got != tc.want {
			t.Errorf("Delay(%d) = %v, want %v", tc.retry, got, tc.want)
		}
	}
}

func TestDelayJitter(t *testing.T) {
	b := Backoff{Base: 100 * ms, Jitter: true}
	for _, tc := range []struct {
		retry int
		u     float64
		want  time.Duration
	}{
		{1, 0, 0}, {1, 0.5, 50 * ms}, {2, 0.25, 50 * ms}, {3, 0.999, 399600 * time.Microsecond},
		{20, 0.5, 5 * time.Second}, {1, -1, 0}, {1, math.NaN(), 0}, {1, 2, 100 * ms},
	} {
		if got := b.Delay(tc.retry, tc.u); got != tc.want {
			t.Errorf("Delay(%d, %g) = %v, want %v", tc.retry, tc.u, got, tc.want)
		}
	}
}

func TestDelayJitterMean(t *testing.T) {
	b := Backoff{Base: 40 * ms, Jitter: true}
	src := rng.New(1)
	const n = 100_000
	sum := 0.0
	for range n {
		d := b.Delay(3, src.Float64())
		if d < 0 || d >= 160*ms {
			t.Fatalf("jittered delay %v outside [0, 160ms)", d)
		}
		sum += float64(d)
	}
	if mean := time.Duration(sum / n); math.Abs(float64(mean-80*ms)) > 0.01*float64(80*ms) {
		t.Fatalf("mean jittered delay %v, want 80ms ± 1%%", mean)
	}
}

func TestDelayCap(t *testing.T) {
	for _, tc := range []struct {
		b    Backoff
		want time.Duration
	}{
		{Backoff{Base: time.Second}, 10 * time.Second},
		{Backoff{Base: time.Second, Cap: 3 * time.Second}, 3 * time.Second},
		{Backoff{Base: time.Minute}, 10 * time.Second}, // base above the cap
		{Backoff{Base: time.Duration(math.MaxInt64), Cap: time.Duration(math.MaxInt64)}, time.Duration(math.MaxInt64)},
		{Backoff{Base: 3, Cap: time.Duration(math.MaxInt64)}, time.Duration(math.MaxInt64)},
	} {
		for _, retry := range []int{5, 40, 63, 64, 65, 1000, math.MaxInt} {
			got := tc.b.Delay(retry, 0)
			if retry >= 64 && got != tc.want {
				t.Errorf("%+v Delay(%d) = %v, want %v", tc.b, retry, got, tc.want)
			}
			if got <= 0 || got > tc.want {
				t.Errorf("%+v Delay(%d) = %v, want in (0, %v]", tc.b, retry, got, tc.want)
			}
		}
	}
	if got := (Backoff{}).Delay(3, 0.5); got != 0 {
		t.Errorf("zero Base: Delay = %v, want 0", got)
	}
}

func TestBackoffValidate(t *testing.T) {
	if err := (Backoff{Base: ms}).Validate(); err != nil {
		t.Error(err)
	}
	if err := (Backoff{Base: -ms}).Validate(); err == nil || !strings.Contains(err.Error(), "Base") {
		t.Errorf("negative Base: %v", err)
	}
	if err := (Backoff{Cap: -ms}).Validate(); err == nil || !strings.Contains(err.Error(), "Cap") {
		t.Errorf("negative Cap: %v", err)
	}
}

func TestBudgetArithmetic(t *testing.T) {
	b, err := NewBudget(0.1)
	if err != nil {
		t.Fatal(err)
	}
	if b.Tokens() != 10 || b.Capacity() != 10 {
		t.Fatalf("new budget: %g tokens, capacity %g; want full at 10", b.Tokens(), b.Capacity())
	}
	b.Deposit() // already full
	if b.Tokens() != 10 {
		t.Fatalf("deposit over capacity: %g tokens", b.Tokens())
	}
	for i := range 10 {
		if !b.Withdraw() {
			t.Fatalf("withdraw %d failed", i+1)
		}
	}
	if b.Withdraw() || b.Tokens() != 0 {
		t.Fatalf("empty budget: withdraw allowed or %g tokens left", b.Tokens())
	}
	for range 9 {
		b.Deposit()
	}
	if b.Withdraw() {
		t.Fatalf("withdraw with %g tokens", b.Tokens())
	}
	b.Deposit() // ten deposits of 0.1 make exactly one token
	if b.Tokens() != 1 || !b.Withdraw() {
		t.Fatalf("ten deposits of 0.1 = %g tokens, want 1", b.Tokens())
	}
}

func TestBudgetCapacity(t *testing.T) {
	for _, tc := range []struct{ ratio, cap float64 }{
		{0.01, 10}, {0.05, 10}, {0.1, 10}, {0.2, 20}, {0.5, 50}, {1, 100},
	} {
		b, err := NewBudget(tc.ratio)
		if err != nil {
			t.Fatal(err)
		}
		if b.Capacity() != tc.cap || b.Tokens() != tc.cap {
			t.Errorf("ratio %g: capacity %g tokens %g, want %g", tc.ratio, b.Capacity(), b.Tokens(), tc.cap)
		}
	}
}

func TestBudgetErrors(t *testing.T) {
	for _, r := range []float64{0, -0.1, 1.5, math.NaN(), math.Inf(1)} {
		if b, err := NewBudget(r); err == nil || b != nil || !strings.Contains(err.Error(), "ratio") {
			t.Errorf("NewBudget(%g) = %v, %v; want an error naming the ratio", r, b, err)
		}
	}
}

// TestBudgetBound drives a budget with a randomly failing server and up to
// three retries per request: retries never exceed ratio × requests + capacity.
func TestBudgetBound(t *testing.T) {
	for _, ratio := range []float64{0.05, 0.1, 0.2, 0.5, 1} {
		b, err := NewBudget(ratio)
		if err != nil {
			t.Fatal(err)
		}
		src := rng.Split(7, "budget")
		capacity := b.Capacity()
		requests, retries, denied := 0, 0, 0
		for i := range 200_000 {
			pFail := 0.02
			if (i/10_000)%3 == 1 { // recurring outages
				pFail = 0.9
			}
			requests++
			b.Deposit()
			for try := 0; try < 3 && src.Float64() < pFail; try++ {
				if !b.Withdraw() {
					denied++
					break
				}
				retries++
			}
			if float64(retries) > ratio*float64(requests)+capacity+1e-9 {
				t.Fatalf("ratio %g: %d retries after %d requests exceed the bound", ratio, retries, requests)
			}
		}
		if ratio < 1 && denied == 0 {
			t.Errorf("ratio %g: the budget never denied a retry", ratio)
		}
	}
}

func BenchmarkBudget(b *testing.B) {
	bu, _ := NewBudget(0.1)
	for b.Loop() {
		bu.Deposit()
		bu.Withdraw()
	}
}
