// Package proxies stands for the external proxies' knowledge, which the
// lab-file parser must not import.
package proxies

// Kinds are the proxies' kinds.
func Kinds() []string { return []string{"haproxy"} }
