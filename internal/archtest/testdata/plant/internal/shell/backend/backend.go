// Package backend stands for a shell.
package backend

// Name names it.
const Name = "backend"
