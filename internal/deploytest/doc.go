// Package deploytest checks the deployment files that are not Go: the
// compose lab (deploy/), the Prometheus configurations and the Grafana
// dashboards (dashboards/). Its tests build the real binaries and run them
// with --check-config, run promtool, and run a real Prometheus against
// `lab up`; there is no Docker engine in CI, so the compose file is checked
// statically.
package deploytest
