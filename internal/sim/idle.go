package sim

import (
	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
)

// An idle-queue algorithm's announcements (balance.Idler: jiq) are events:
// when a server's replies leave it with nothing in flight (queue empty, no
// worker busy), it announces itself to one balancer of the tier, chosen by
// the lab's balancers.jiq (balance.JIQ.Sample: one at random, or the
// shortest idle queue of d drawn, read at that instant), and the
// announcement travels the server -> balancer hop on its own leg
// (policy.IdleLeg, drawn with the announcement's number,
// policy.Announcement; in a lab with zones over the link between theirs,
// and lost when network.partition cuts it), so the live backend delays it
// alike. With zones and a locality layer, a server announces only to its
// own zone's balancers when its zone has any (policy.AnnounceTo). The servers
// announce when an algorithm of the lab's tier, at its start or after a
// script event, keeps an idle queue (assemble.Announces); a balancer whose
// algorithm does not, or that no longer has the server, drops it.

// announce sends server si's announcement that it fell idle at instant at.
func (w *world) announce(si int, at clock.Instant) {
	s := w.servers[si]
	number := policy.Announcement(s.spec.Name, s.announced)
	s.announced++
	w.announcements++
	z := w.net.Zones
	var zone int32
	if z != nil {
		zone = z.Server(int32(si))
	}
	w.joinBuf = policy.AnnounceTo(assemble.JIQ(w.lab), w.lab.Seed, number, len(w.bals), z, zone, assemble.IdleLocal(w.lab), w.joinBuf[:0])
	b := w.joinBuf[0]
	if len(w.joinBuf) > 1 {
		w.lenBuf = w.lenBuf[:0]
		for _, c := range w.joinBuf {
			w.lenBuf = append(w.lenBuf, w.bals[c].IdleLen())
		}
		b = w.joinBuf[balance.Shortest(w.lenBuf)]
	}
	net := w.net
	if z != nil {
		there := z.Balancer(int32(b))
		if net.Crosses(zone, there) { // across a cut link: lost on the way
			return
		}
		net = net.Between(zone, there)
	}
	w.push(at.Add(net.Delay(number, policy.IdleLeg)), evIdleAtLB, uint64(b), int32(si))
}

// idleAfterReplies announces server si when the replies just delivered
// left it up with nothing in flight.
func (w *world) idleAfterReplies(si int) {
	if !w.announcing || len(w.replyBuf) == 0 {
		return
	}
	s := w.servers[si]
	if s.removed || !s.core.Up() {
		return
	}
	if queued, busy := s.core.Load(); queued > 0 || busy > 0 {
		return
	}
	w.announce(si, w.replyBuf[len(w.replyBuf)-1].At)
}

// onIdleAtLB hands server si's announcement to balancer bi.
func (w *world) onIdleAtLB(bi, si int) {
	w.bals[bi].Idle(w.now, si)
}

// idleFigures are the run's announcement figures when the servers announce
// (nil otherwise): those sent, and the tier's picks, those that took an
// idle server among them.
func (w *world) idleFigures(requests uint64) *report.Announcements {
	if !w.announcing {
		return nil
	}
	var picks, fromQueue uint64
	for _, b := range w.bals {
		picks += b.Sent()
		fromQueue += b.IdlePicks()
	}
	return report.NewAnnouncements(w.announcements, requests, picks, fromQueue)
}
