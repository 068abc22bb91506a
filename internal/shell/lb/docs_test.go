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
	page, index := testbin.DocEndpoints(t, "admin-api-lb.md"), testbin.DocIndexEndpoints(t, "lb")
	for _, r := range routes {
		if !page[r] {
			t.Errorf("docs/admin-api-lb.md has no section for %s", r)
		}
		if !index[r] {
			t.Errorf("docs/admin-api.md's index does not list the lb's %s", r)
		}
	}
}
