package lab

import (
	"strconv"
	"strings"

	"github.com/lblab/lblab/internal/labfile"
)

// addedServerLab is the lab file a server added at run time reads: lab's
// servers with the new one, like the last but for ev's speed and workers
// when given, appended so that it expands to ev.Target. A generated name
// sK must be the K-th server (the names s1, s2, ... are positional), so
// the last group is repeated up to K; another name is a group of one of
// that name. A server of the lab re-added after a removal comes back as
// the lab has it.
func addedServerLab(lab *labfile.Lab, ev labfile.Event) *labfile.Lab {
	name := ev.Target
	l := lab.Clone()
	l.Events, l.Compare = nil, nil
	last := l.Servers[len(l.Servers)-1]
	n := len(l.ExpandServers())
	k, err := strconv.Atoi(strings.TrimPrefix(name, "s"))
	switch {
	case strings.HasPrefix(name, "s") && err == nil && k > n:
		last.Count, last.Name = k-n, ""
	case strings.HasPrefix(name, "s") && err == nil:
		return l // s1..sN: the lab's own server of that name (re-added after a removal)
	default:
		last.Count, last.Name = 1, name
	}
	if ev.Speed > 0 {
		last.Speed = ev.Speed
	}
	if ev.Workers > 0 {
		last.Workers = ev.Workers
	}
	l.Servers = append(l.Servers, last)
	return l
}
