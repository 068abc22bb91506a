package health

import "testing"

func TestHysteresis(t *testing.T) {
	c, err := New(Config{Fails: 2, Passes: 3})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		ok      bool
		changed bool
		healthy bool
	}{
		{false, false, true}, // one failure is not enough
		{true, false, true},  // and a pass resets the run
		{false, false, true},
		{false, true, false}, // two in a row: out
		{false, false, false},
		{true, false, false},
		{true, false, false},
		{false, false, false}, // a failure resets the passes
		{true, false, false},
		{true, false, false},
		{true, true, true}, // three in a row: back
	}
	for i, s := range steps {
		if got := c.Observe(0, s.ok); got != s.changed || c.Healthy(0) != s.healthy {
			t.Fatalf("step %d (ok=%v): changed %v healthy %v, want %v %v", i, s.ok, got, c.Healthy(0), s.changed, s.healthy)
		}
	}
	if !c.Healthy(7) {
		t.Error("a server never checked must be healthy")
	}
}

func TestServersAreIndependentAndReset(t *testing.T) {
	c, _ := New(Config{Fails: 1, Passes: 1})
	c.Observe(2, false)
	if c.Healthy(2) || !c.Healthy(0) || !c.Healthy(1) {
		t.Fatal("one server's failure ejected another")
	}
	c.Reset(2)
	if !c.Healthy(2) {
		t.Fatal("Reset did not put the server back")
	}
	if f, p := c.Run(2); f != 0 || p != 0 {
		t.Fatalf("Reset kept the run %d/%d", f, p)
	}
}

func TestConfigIsValidated(t *testing.T) {
	for _, cfg := range []Config{{0, 1}, {1, 0}, {-1, -1}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	c, _ := New(Config{Fails: 3, Passes: 3})
	if c.SetConfig(Config{}) == nil {
		t.Error("SetConfig accepted a zero config")
	}
	c.Observe(0, false)
	_ = c.SetConfig(Config{Fails: 1, Passes: 1})
	if c.Observe(0, false); c.Healthy(0) {
		t.Error("the new threshold did not apply to the running count")
	}
}

// Describe words a verdict that just changed as both clocks log it, and
// IsDown reads it back, with or without the live lb's name in front.
func TestDescribeAndIsDown(t *testing.T) {
	c, err := New(Config{Fails: 2, Passes: 3})
	if err != nil {
		t.Fatal(err)
	}
	c.Observe(0, false)
	if !c.Observe(0, false) {
		t.Fatal("two failed checks did not take the server out")
	}
	down := c.Describe(0, "s3")
	if down != "health s3: down after 2 failed checks" {
		t.Errorf("down: %q", down)
	}
	for range 2 {
		c.Observe(0, true)
	}
	if !c.Observe(0, true) {
		t.Fatal("three passed checks did not bring it back")
	}
	up := c.Describe(0, "s3")
	if up != "health s3: up after 3 passed checks" {
		t.Errorf("up: %q", up)
	}
	for line, want := range map[string]bool{down: true, "lb1: " + down: true, up: false, "lb2: " + up: false,
		DescribeOff("s3"): false, "outlier s3: ejected for 5s (3 failures in a row)": false, "kill s3": false} {
		if IsDown(line) != want {
			t.Errorf("IsDown(%q) = %v, want %v", line, !want, want)
		}
	}
}
