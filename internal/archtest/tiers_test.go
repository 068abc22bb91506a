package archtest

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// labfile knows no proxy: internal/proxies hands it the balancer kinds
// besides lb when it is linked (labfile.UseTiers, from its init). So every
// program that reads lab files links internal/proxies, or it would refuse
// a lab naming haproxy, nginx, caddy or command: the daemons read the lab
// file lab writes for them, and the page's wasm module a pasted one.
func TestProgramsThatReadLabsKnowTheProxies(t *testing.T) {
	t.Parallel()
	const labfile, proxies = "github.com/lblab/lblab/internal/labfile", "github.com/lblab/lblab/internal/proxies"
	list := func(env []string, args ...string) []string {
		cmd := exec.Command("go", append([]string{"list", "-e"}, args...)...)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %v: %v", args, err)
		}
		return strings.Fields(string(out))
	}
	mains := list(nil, "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "./cmd/...")
	if len(mains) < 4 {
		t.Fatalf("found %d programs under cmd: %v", len(mains), mains)
	}
	check := func(env []string, main string) {
		deps := list(env, "-deps", main)
		if slices.Contains(deps, labfile) && !slices.Contains(deps, proxies) {
			t.Errorf("%s %s reads lab files (links internal/labfile) but not internal/proxies: import it (_) so that labfile knows balancers.kind's proxies", strings.Join(env, " "), main)
		}
	}
	for _, m := range mains {
		check(nil, m)
	}
	check([]string{"GOOS=js", "GOARCH=wasm"}, "github.com/lblab/lblab/cmd/labwasm")
}
