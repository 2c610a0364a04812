// Command s3count is a reverse proxy in front of an S3 server that counts the
// bytes uploaded through it, for scripts/cycle (BENCHMARKS.md, "The whole
// cycle (issue 23)"): the bytes of the state a bucket copy keeps under
// PREFIX/.rsx/state (either format: the whole state.db, or the base, segments
// and manifest of state/), and the bytes of the copy's own objects (PREFIX/.rsx/
// aside, the lock and probes). Each PUT counts, single objects and the parts
// of a multipart upload alike, by its decoded length (X-Amz-Decoded-Content-Length
// when the body is aws-chunked, else Content-Length). Requests pass through
// unchanged, Host header included, so that their signatures still hold.
// It is not part of rsx.
//
//	go run ./scripts/s3count -target http://127.0.0.1:7070 [-listen 127.0.0.1:0]
//
// prints its own base URL on the first line of standard output, then serves
// until interrupted; GET /_s3count answers the counts so far as JSON:
// {"state_bytes", "state_puts", "data_bytes", "data_puts"}.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// counts are the totals since the proxy started.
type counts struct {
	StateBytes atomic.Int64
	StatePuts  atomic.Int64
	DataBytes  atomic.Int64
	DataPuts   atomic.Int64
}

// countsPath is where the counts are read; no bucket can be named so (bucket
// names begin with a letter or a digit).
const countsPath = "/_s3count"

// newCounter returns the proxy to target and the counts it keeps.
func newCounter(target *url.URL) (http.Handler, *counts) {
	c := &counts{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == countsPath {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]int64{
				"state_bytes": c.StateBytes.Load(), "state_puts": c.StatePuts.Load(),
				"data_bytes": c.DataBytes.Load(), "data_puts": c.DataPuts.Load(),
			})
			return
		}
		if r.Method == http.MethodPut {
			size := r.ContentLength
			if d := r.Header.Get("X-Amz-Decoded-Content-Length"); d != "" {
				if n, err := strconv.ParseInt(d, 10, 64); err == nil {
					size = n
				}
			}
			switch {
			case strings.Contains(r.URL.Path, "/.rsx/state"):
				c.StateBytes.Add(max(size, 0))
				c.StatePuts.Add(1)
			case !strings.Contains(r.URL.Path, "/.rsx/"):
				c.DataBytes.Add(max(size, 0))
				c.DataPuts.Add(1)
			}
		}
		proxy.ServeHTTP(w, r)
	}), c
}

func main() {
	target := flag.String("target", "", "base URL of the S3 server (http://HOST:PORT)")
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	u, err := url.Parse(*target)
	if *target == "" || err != nil || u.Scheme == "" || u.Host == "" {
		fmt.Fprintln(os.Stderr, "s3count: -target must be the S3 server's base URL, e.g. http://127.0.0.1:7070")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "s3count:", err)
		os.Exit(2)
	}
	h, _ := newCounter(u)
	fmt.Printf("http://%s\n", ln.Addr())
	if err := http.Serve(ln, h); err != nil {
		fmt.Fprintln(os.Stderr, "s3count:", err)
		os.Exit(1)
	}
}
