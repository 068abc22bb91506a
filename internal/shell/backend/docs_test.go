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
	testbin.CheckAdminDocs(t, "backend", "admin-api-backend.md", routes)
}
