package lab

import (
	"strconv"
	"strings"

	"github.com/lblab/lblab/internal/labfile"
)

// addedServerLab is the lab file a server added at run time reads: lab's
// servers with the new one, like the last, appended so that it expands to
// name. A generated name sK must be the K-th server (the names s1, s2, ...
// are positional), so the last group is repeated up to K; another name is
// a group of one of that name.
func addedServerLab(lab *labfile.Lab, name string) *labfile.Lab {
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
	l.Servers = append(l.Servers, last)
	return l
}
