package dash

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The API's routing, the same for the live controller, lab watch's server
// and the page's wasm module (which hands requests in memory): a route is
// a method and an exact path. A request no route takes gets the API's
// JSON refusal, {"error", "code"}, as every other error: 405 with the
// methods its path takes (the Allow header) when some route has the path,
// else 404. Only a GET (or HEAD) outside /api/ that no route has is the
// page's, the dashboard's files.

// Routes is an API's route table; H is its handlers' type (a Handle, or
// an http.Handler over HTTP).
type Routes[H any] struct {
	byPath map[string]map[string]H // path -> method -> handler
	paths  []string                // in the order they were added
	page   bool
}

// NewRoutes is an empty table; page says whether a page serves the GETs
// outside /api/ that no route has (Match.Page).
func NewRoutes[H any](page bool) *Routes[H] {
	return &Routes[H]{byPath: map[string]map[string]H{}, page: page}
}

// Add routes method at path to h.
func (rs *Routes[H]) Add(method, path string, h H) {
	m, ok := rs.byPath[path]
	if !ok {
		m = map[string]H{}
		rs.byPath[path] = m
		rs.paths = append(rs.paths, path)
	}
	m[method] = h
}

// Match is what a table does with a request: a route's handler (OK), the
// page's (Page; where no page is served, Refusal is its 404), or a
// refusal to answer with.
type Match[H any] struct {
	H       H
	OK      bool
	Page    bool
	Refusal Answer
}

// Find matches a request: its path's route for the method (a HEAD is a
// GET without the body), the page for a GET outside /api/ no route has
// when the table has a page, else the refusal (405 or 404).
func (rs *Routes[H]) Find(method, path string) Match[H] {
	get := method == "GET" || method == "HEAD"
	if m, ok := rs.byPath[path]; ok {
		h, ok := m[method]
		if !ok && method == "HEAD" {
			h, ok = m["GET"]
		}
		if ok {
			return Match[H]{H: h, OK: true}
		}
		return Match[H]{Refusal: notAllowed(method, path, slices.Collect(maps.Keys(m)))}
	}
	if rs.page && !strings.HasPrefix(path, "/api/") && path != "/api" {
		if get {
			return Match[H]{Page: true, Refusal: Refuse(404, "no such page: "+path)}
		}
		return Match[H]{Refusal: notAllowed(method, path, []string{"GET"})}
	}
	return Match[H]{Refusal: Refuse(404, fmt.Sprintf("no such endpoint: %s %s; the API's are %s", method, path, strings.Join(rs.paths, ", ")))}
}

// notAllowed is the 405 for method at a path that takes methods (a GET
// route takes HEAD too), naming them in its text and its Allow header.
func notAllowed(method, path string, methods []string) Answer {
	if slices.Contains(methods, "GET") && !slices.Contains(methods, "HEAD") {
		methods = append(methods, "HEAD")
	}
	slices.Sort(methods)
	allow := strings.Join(methods, ", ")
	a := Refuse(405, fmt.Sprintf("%s %s: %s takes %s", method, path, path, allow))
	a.Allow = allow
	return a
}
