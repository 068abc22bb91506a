package lb

import (
	"testing"

	"github.com/lblab/lblab/internal/testbin"
)

// Every endpoint the lb serves is documented in a section of its admin page and listed
// in docs/admin-api.md's index.
func TestAdminEndpointsDocumented(t *testing.T) {
	l, _ := startLB(t, testLab(t))
	routes := []string{"DELETE /admin/backends/{name}"}
	for path, r := range l.adminRoutes() {
		routes = append(routes, r.method+" "+path)
	}
	testbin.CheckAdminDocs(t, "lb", "admin-api-lb.md", routes)
}
