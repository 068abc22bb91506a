package backend

import (
	"testing"

	"github.com/lblab/lblab/internal/testbin"
)

// Every endpoint the backend serves is documented in a section of its admin page and
// listed in docs/admin-api.md's index.
func TestAdminEndpointsDocumented(t *testing.T) {
	routes := []string{"GET /admin/state", "GET /load", "GET /healthz", "GET /metrics"}
	for path := range actions {
		routes = append(routes, "POST "+path)
	}
	page, index := testbin.DocEndpoints(t, "admin-api-backend.md"), testbin.DocIndexEndpoints(t, "backend")
	for _, r := range routes {
		if !page[r] {
			t.Errorf("docs/admin-api-backend.md has no section for %s", r)
		}
		if !index[r] {
			t.Errorf("docs/admin-api.md's index does not list the backend's %s", r)
		}
	}
}
