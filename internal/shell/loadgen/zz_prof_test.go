package loadgen

import (
	"os"
	"testing"
	"time"
)

func TestZZProfileNginx(t *testing.T) {
	url := os.Getenv("LP_URL")
	if url == "" {
		t.Skip()
	}
	lab := testLab(t, map[string]string{"clients.rate": os.Getenv("LP_RATE"), "duration": "5s", "network.hop": "0s",
		"clients.work.dist": "constant", "clients.work.mean": "1ns"})
	rep, _ := runLive(t, Config{Lab: lab, Targets: []Target{{URLs: []string{url}}}, HTTP: HTTP{Plain: true}, Drain: 2 * time.Second})
	ld := rep.Runs[0].Load
	t.Logf("sent %d achieved %.0f late %d p50 %.3f p99 %.3f cpu %.2f failed %d %s %s", ld.Sent, ld.AchievedRate, rep.Runs[0].Pacing.Late,
		rep.Runs[0].Pacing.P50, rep.Runs[0].Pacing.P99, ld.Generator.CPU, rep.Runs[0].Failed, ld.Generator.Cause, ld.Generator.Advice)
}
