// Package site builds make site's static folder: the dashboard's page and
// bundle (internal/lab/webui, the very files lab watch serves) marked to
// use the wasm engine, the Web Worker that runs the engine (worker.js),
// the Go toolchain's wasm_exec.js, and lab.wasm, cmd/labwasm built for
// GOOS=js GOARCH=wasm. Any static file server serves the folder; no lblab
// process runs behind it (docs/site.md).
package site

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/lblab/lblab/internal/lab/webui"
)

//go:embed worker.js
var worker []byte

// Module is the import path of the wasm module's main package.
const Module = "github.com/lblab/lblab/cmd/labwasm"

// The files of the folder besides the bundle's.
const (
	WasmFile   = "lab.wasm"
	WorkerFile = "worker.js"
	ExecFile   = "wasm_exec.js"
)

// engineMark is what index.html's root element carries on the static
// site: the page's engine.js reads it and talks to the worker instead of
// fetching from a Go process.
const (
	htmlTag    = `<html lang="en">`
	engineMark = `<html lang="en" data-engine="wasm">`
)

// Build writes the site into dir (made if missing): goCmd is the go
// command that builds the module and names its GOROOT; its output goes to
// stderr.
func Build(ctx context.Context, dir, goCmd string, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := copyBundle(dir); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, WorkerFile), worker, 0o644); err != nil {
		return err
	}
	root, err := exec.CommandContext(ctx, goCmd, "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("%s env GOROOT: %w", goCmd, err)
	}
	if err := copyExec(strings.TrimSpace(string(root)), dir); err != nil {
		return err
	}
	// The module is built with lab's profile (cmd/lab/default.pgo, make pgo),
	// as go build ./cmd/lab builds lab: the same hot paths inlined.
	gomod, err := exec.CommandContext(ctx, goCmd, "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("%s env GOMOD: %w", goCmd, err)
	}
	profile := filepath.Join(filepath.Dir(strings.TrimSpace(string(gomod))), "cmd", "lab", "default.pgo")
	build := exec.CommandContext(ctx, goCmd, "build", "-pgo="+profile, "-ldflags=-s -w", "-o", filepath.Join(dir, WasmFile), Module)
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	build.Stdout, build.Stderr = stderr, stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building %s for js/wasm: %w", Module, err)
	}
	return nil
}

// copyBundle writes the dashboard's bundle, index.html marked for the wasm
// engine.
func copyBundle(dir string) error {
	return fs.WalkDir(webui.FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(webui.FS(), path)
		if err != nil {
			return err
		}
		if path == "index.html" {
			if !bytes.Contains(data, []byte(htmlTag)) {
				return fmt.Errorf("the bundle's index.html has no %s to mark for the wasm engine", htmlTag)
			}
			data = bytes.Replace(data, []byte(htmlTag), []byte(engineMark), 1)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, path), data, 0o644)
	})
}

// copyExec copies the toolchain's wasm_exec.js (lib/wasm since Go 1.24,
// misc/wasm before), which must match the compiler that built the module.
func copyExec(goroot, dir string) error {
	for _, p := range []string{"lib/wasm", "misc/wasm"} {
		data, err := os.ReadFile(filepath.Join(goroot, p, ExecFile))
		if err == nil {
			return os.WriteFile(filepath.Join(dir, ExecFile), data, 0o644)
		}
	}
	return fmt.Errorf("no %s under %s (lib/wasm or misc/wasm)", ExecFile, goroot)
}
