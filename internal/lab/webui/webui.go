// Package webui embeds the dashboard's built bundle (web/ built by `make
// web` into dist/, which is committed so `go build` needs no node).
package webui

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed dist
var files embed.FS

// FS is the bundle: index.html, app.js and app.css (make site copies them).
func FS() fs.FS {
	sub, err := fs.Sub(files, "dist")
	if err != nil {
		panic(err) // dist is embedded at build time: cannot be missing
	}
	return sub
}

// Handler serves the bundle: index.html at /, app.js and app.css beside it.
// The files change only with the binary, so browsers revalidate each load.
func Handler() http.Handler {
	fsrv := http.FileServerFS(FS())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		fsrv.ServeHTTP(w, r)
	})
}
