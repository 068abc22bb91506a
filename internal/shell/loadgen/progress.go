package loadgen

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/report"
)

// progressEvery is how often the progress line is redrawn.
const progressEvery = 250 * time.Millisecond

// progressWindow ticks make the achieved-rate window (1 s).
const progressWindow = 4

// progress is the one-line live view on a terminal.
type progress struct {
	w       io.Writer
	offered [progressWindow]uint64 // first target's requests at the last ticks
	tick    int
	drawn   bool
}

// draw rewrites the line: elapsed, achieved vs target rate over the last
// second, then each target's p50/p99 and failed requests.
func (p *progress) draw(l *loop, now clock.Instant) {
	if p.w == nil || len(l.targets) == 0 {
		return
	}
	offered := l.targets[0].rt.Rec.Total.Offered
	oldest := p.offered[p.tick%progressWindow]
	span := min(p.tick+1, progressWindow)
	p.offered[p.tick%progressWindow] = offered
	p.tick++
	rate := float64(offered-oldest) / (float64(span) * progressEvery.Seconds())
	var b strings.Builder
	fmt.Fprintf(&b, "\r\033[K%6.1fs  %s", now.Seconds(), l.rateText(rate))
	for _, t := range l.targets {
		lat := t.rt.Rec.Lat
		fmt.Fprintf(&b, "  | %s p50 %s p99 %s failed %d", t.name,
			msText(lat.Quantile(0.5)), msText(lat.Quantile(0.99)), t.rt.Rec.Total.Failed)
	}
	if l.late > 0 {
		fmt.Fprintf(&b, "  LATE %d", l.late)
	}
	io.WriteString(p.w, b.String())
	p.drawn = true
}

func (l *loop) rateText(rate float64) string {
	if l.users > 0 {
		return fmt.Sprintf("%.0f req/s (%d users)", rate, l.users)
	}
	return fmt.Sprintf("%.0f/%.0f req/s", rate, l.stream.RateAt(l.clock()))
}

// clear ends the progress line so the report starts on a clean line.
func (p *progress) clear() {
	if p.drawn {
		io.WriteString(p.w, "\r\033[K")
	}
}

func msText(d time.Duration) string { return fmt.Sprintf("%.1fms", report.Ms(d)) }
