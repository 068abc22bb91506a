package backend

// Leave puts the backend in lame-duck mode before it stops (a replica
// scaled away, a pod replaced): it goes on serving every request, but the
// data port's GET /healthz answers 503 {"status":"leaving"}, so balancers'
// active health checks take it out of rotation while it still answers, and
// no request meets a closed port. There is no way back; Shutdown follows.
func (b *Backend) Leave() {
	if !b.leaving.Swap(true) {
		b.log.Info("leaving: /healthz answers 503 until shutdown")
	}
}
