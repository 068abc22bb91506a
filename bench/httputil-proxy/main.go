// Command httputil-proxy is the standard library's reverse proxy in front of
// one backend: the peer lb is measured against in bench/proxy.sh.
package main

import (
	"flag"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:19004", "address to serve on")
	backend := flag.String("backend", "http://127.0.0.1:19001", "the backend's URL")
	flag.Parse()
	target, err := url.Parse(*backend)
	if err != nil {
		log.Fatalf("--backend: %v", err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = &http.Transport{MaxIdleConnsPerHost: 512, MaxIdleConns: 512}
	log.Fatal(http.ListenAndServe(*listen, proxy))
}
