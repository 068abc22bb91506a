package sim

import "github.com/lblab/lblab/internal/core/load"

// The in-flight invariants of every kind of lab, checked in check mode
// (checkStep, every 1024 events). What a balancer's counts mean depends on
// where they come from, so the invariant does too:
//
//   - A balancer of the tier, in every load mode: each pick it forwarded
//     gets exactly one Done (the server's answer, or its own 504) before the
//     attempt is freed. The simulator counts its open tickets per balancer;
//     the count equals the attempts holding one and is never negative. With
//     local load the table's outstanding counts must equal it too (check.go).
//   - Shared load: a balancer's outstanding count of a server is the
//     server's last report (queued + in service), untouched by picks and
//     answers in between, and its queued figure is that report plus the
//     optimistic increments of its own picks since: never below the report,
//     never negative.
//   - Clients balancing themselves: each client's table counts, per server,
//     the attempts it picked whose answer has not reached it yet, like a
//     local balancer (its counts are its own; load reports only refresh the
//     queued and in-service figures).

// openTicket and closeTicket keep the simulator's own count of the tier's
// picks not yet answered, per balancer.
func (w *world) openTicket(bal int32) {
	if w.check {
		w.open[bal]++
	}
}

func (w *world) closeTicket(bal int32) {
	if w.check {
		w.open[bal]--
	}
}

// checkInFlight checks the invariants above for the kind of lab running.
func (w *world) checkInFlight() {
	if w.clientLB {
		w.checkClientCounts()
		return
	}
	held := make([]int, len(w.bals))
	w.rt.EachAttempt(func(_ uint64, a *attempt) {
		if a.Net.ticket.Valid && !a.Net.lbDone {
			held[a.Bal]++
		}
	})
	for bi := range w.bals {
		if w.open[bi] < 0 || w.open[bi] != held[bi] {
			w.fail("balancer %d has %d picks without an answer, %d attempts hold one", bi, w.open[bi], held[bi])
		}
	}
	w.checkSharedCounts()
}

// checkSharedCounts: with shared load, counts are the last reports.
func (w *world) checkSharedCounts() {
	for bi, b := range w.bals {
		if b.Loads().Mode != load.Shared {
			continue
		}
		for si, st := range b.Loads().Stats {
			var rep load.Report
			if bi < len(w.reported) && si < len(w.reported[bi]) {
				rep = w.reported[bi][si]
			}
			name := w.servers[si].spec.Name
			if st.Outstanding != rep.InFlight() {
				w.fail("balancer %d counts %d outstanding at %s, whose last report said %d", bi, st.Outstanding, name, rep.InFlight())
			}
			if st.Queued < rep.Queued || st.Last.InService != rep.InService || st.Queued < 0 {
				w.fail("balancer %d sees %d queued and %d in service at %s, whose last report said %d and %d",
					bi, st.Queued, st.Last.InService, name, rep.Queued, rep.InService)
			}
		}
	}
}

// checkClientCounts: each client's own table counts its attempts in flight.
func (w *world) checkClientCounts() {
	held := make(map[[2]int]int)
	w.rt.EachAttempt(func(_ uint64, a *attempt) {
		if a.Ticket.Valid && !a.Answered {
			held[[2]int{int(a.Bal), a.Ticket.Server}]++
		}
	})
	for bi, b := range w.bals {
		for si, st := range b.Loads().Stats {
			if want := held[[2]int{bi, si}]; st.Outstanding != want {
				w.fail("client %d counts %d outstanding at %s, %d of its attempts are in flight there",
					bi, st.Outstanding, w.servers[si].spec.Name, want)
			}
		}
	}
}
