//go:build linux

package lab

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childrenOf lists the processes whose parent is pid (from /proc).
func childrenOf(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 {
			if ppid, _ := strconv.Atoi(fields[1]); ppid == pid {
				out = append(out, child)
			}
		}
	}
	return out
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Children must not outlive lab, even when lab itself is killed outright.
func TestChildrenDieWithLab(t *testing.T) {
	cmd := exec.Command(labBin, "up", "--listen", freeAddr(t), "--lb", freeAddr(t),
		"--logs", filepath.Join(t.TempDir(), "logs"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var kids []int
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if kids = childrenOf(cmd.Process.Pid); len(kids) >= 7 { // 5 backends, an lb, a loadgen
			break
		}
	}
	if len(kids) < 7 {
		t.Fatalf("lab up started %d processes, want 7", len(kids))
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		left := 0
		for _, pid := range kids {
			if alive(pid) && !zombie(pid) {
				left++
			}
		}
		if left == 0 {
			return
		}
	}
	t.Fatalf("children of a killed lab still run: %v", kids)
}

// A terminal's Ctrl-C signals lab's whole process group. The children are
// in groups of their own, so it does not reach them (lab reads their
// counters first, cmd/lab's TestRunInterruptedByTerminalKeepsItsServers),
// and lab, which it does reach, still stops every one of them.
func TestTerminalCtrlCLeavesNoChild(t *testing.T) {
	cmd := exec.Command(labBin, "up", "--listen", freeAddr(t), "--lb", freeAddr(t),
		"--logs", filepath.Join(t.TempDir(), "logs"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // lab's group: the terminal's job
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // only if the test fails before its wait
	var kids []int
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if kids = childrenOf(cmd.Process.Pid); len(kids) >= 7 {
			break
		}
	}
	if len(kids) < 7 {
		t.Fatalf("lab up started %d processes, want 7", len(kids))
	}
	for _, pid := range kids {
		if g, err := syscall.Getpgid(pid); err != nil || g == cmd.Process.Pid {
			t.Errorf("child %d is in process group %d (%v), lab's: a terminal's Ctrl-C kills it", pid, g, err)
		}
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		t.Fatal("lab up did not stop within 30 s of the terminal's Ctrl-C")
	}
	for _, pid := range kids {
		if alive(pid) && !zombie(pid) {
			t.Errorf("child %d still runs after lab up stopped", pid)
		}
	}
}

// zombie reports whether pid has exited and waits to be reaped.
func zombie(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}
