package dash

import (
	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/labfile"
)

// placeZones writes into s's balancers and servers the zone each is in
// (a lab with zones only), as the network places them (assemble.Zones: a
// server the lab does not name, one a script added, is in the last
// server's zone): the page groups the servers by zone and marks each card
// and node with it.
func placeZones(s *Snapshot, lab *labfile.Lab) {
	z := assemble.Zones(lab)
	if z == nil {
		return
	}
	s.Zones = make([]ZoneView, len(lab.Zones))
	for i, zone := range lab.Zones {
		s.Zones[i] = ZoneView{Name: zone.Name, Region: zone.Region}
	}
	for i := range s.Servers {
		if at, ok := z.ServerNamed(s.Servers[i].Name); ok {
			s.Servers[i].Zone = lab.Zones[at].Name
		}
	}
	for i := range s.Balancers {
		s.Balancers[i].Zone = lab.Zones[z.Balancer(int32(i))].Name
	}
}

// ZoneView is one zone of the lab as the page shows it.
type ZoneView struct {
	Name   string `json:"name"`
	Region string `json:"region,omitempty"`
}
