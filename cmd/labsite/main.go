// Command labsite builds make site's static folder (internal/site): the
// dashboard with the simulator as WebAssembly, served by any static file
// server with no lblab process behind it.
//
//	go run ./cmd/labsite -o site && python3 -m http.server -d site
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lblab/lblab/internal/site"
)

func main() {
	out := flag.String("o", "site", "the folder to write")
	goCmd := flag.String("go", "go", "the go command that builds the wasm module")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "labsite: no arguments, got %q (usage: labsite [-o DIR] [-go GO])\n", flag.Args())
		os.Exit(2)
	}
	if err := site.Build(context.Background(), *out, *goCmd, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "labsite:", err)
		os.Exit(1)
	}
	info, err := os.Stat(filepath.Join(*out, site.WasmFile))
	if err != nil {
		fmt.Fprintln(os.Stderr, "labsite:", err)
		os.Exit(1)
	}
	fmt.Printf("site: %s (%s %.1f MB); serve it with: python3 -m http.server -d %s\n", *out, site.WasmFile, float64(info.Size())/1e6, *out)
}
