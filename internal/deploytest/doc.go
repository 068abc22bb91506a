// Package deploytest checks the deployment files that are not Go: the
// compose lab (deploy/), the Prometheus configurations and the Grafana
// dashboards (dashboards/). Its tests build the real binaries and run them
// with --check-config, run promtool, and run a real Prometheus against
// `lab up` (make compose-check, part of make test). TestComposeLab brings
// the compose lab up under a real Docker engine; it runs only under make
// compose-test, which installs and starts the engine (docs/compose.md).
package deploytest
