package lb

import (
	"context"
	"testing"
	"time"
)

// A Shutdown right after Start must not miss a listener fasthttp's Serve had
// not registered yet (it would then accept forever and Shutdown would hang).
func TestShutdownRightAfterStart(t *testing.T) {
	for i := 0; i < 20; i++ {
		l, err := New(Config{Name: "lbt", Lab: testLab(t), Backends: specs(startFake(t, "s1"))})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		done := make(chan error, 1)
		go func() { done <- l.Shutdown(ctx) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("round %d: shutdown: %v", i, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: Shutdown right after Start hangs", i)
		}
		cancel()
	}
}
