// Package lab runs the live lab: it starts backend, lb and loadgen
// processes on 127.0.0.1 (the fleet, with an outside proxy in the lb's
// place if the lab names one), waits until they are ready, applies a lab
// file's script and the drills through their admin APIs, watches them, and
// stops every child — on a normal exit, on Ctrl-C, and (on Linux) when lab
// itself dies. Run (lab run), Up (lab up) and Attach (lab dashboard) wire
// the parts, each a package of its own: one child process
// (internal/lab/proc), the admin client (internal/lab/admin), reading the
// processes (internal/lab/gather), the controller and its API
// (internal/lab/control), attaching to processes lab did not start
// (internal/lab/attach).
package lab
