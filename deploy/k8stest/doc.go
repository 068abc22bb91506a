// Package k8stest checks the Kubernetes manifests of deploy/k8s the way
// internal/deploytest checks the compose file: no cluster runs here, so it
// renders the kustomize base (and the Prometheus operator component) with
// the kustomize API, decodes every object strictly into k8s.io/api types,
// and checks every container's command line against the binaries' own flag
// parsing (--check-config), every port and probe against what the process
// listens on, every Service's selector and ports against the pods', and the
// addresses the processes name against the Services. The sweep's Indexed
// Job (deploy/k8s/sweep) is rendered too, its slices run and merged. It is its own module
// so that lblab's go.mod stays free of the Kubernetes modules; run it with
// `make k8s-check` (part of `make test`).
package k8stest
