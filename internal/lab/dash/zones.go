package dash

import "github.com/lblab/lblab/internal/labfile"

// placeZones writes into s's balancers and servers the zone each is in
// (a lab with zones only): the page groups the servers by zone and marks
// each card and node with it. A server the lab does not name (one a
// script added) is in the last server's zone, as the network places it.
func placeZones(s *Snapshot, lab *labfile.Lab) {
	if !lab.Zoned() {
		return
	}
	s.Zones = make([]ZoneView, len(lab.Zones))
	for i, z := range lab.Zones {
		s.Zones[i] = ZoneView{Name: z.Name, Region: z.Region}
	}
	byName := map[string]string{}
	last := ""
	zs := lab.ServerZones()
	for i, n := range lab.ExpandServers() {
		if i < len(zs) {
			last = lab.Zones[zs[i]].Name
			byName[n.Name] = last
		}
	}
	for i := range s.Servers {
		if z, ok := byName[s.Servers[i].Name]; ok {
			s.Servers[i].Zone = z
		} else {
			s.Servers[i].Zone = last
		}
	}
	bz := lab.BalancerZones()
	for i := range s.Balancers {
		if len(bz) > 0 {
			s.Balancers[i].Zone = lab.Zones[bz[i%len(bz)]].Name
		}
	}
}

// ZoneView is one zone of the lab as the page shows it.
type ZoneView struct {
	Name   string `json:"name"`
	Region string `json:"region,omitempty"`
}
