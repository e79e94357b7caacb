/*
Copyright 2026 The Knative Authors

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/rest"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

// plugin is a kubectl-route_address binary the watch row runs (-plugins).
type plugin struct{ name, bin string }

var plugins []plugin

// watchLength is how long the watch row runs each plugin's status --watch.
var watchLength = 60 * time.Second

// watchResult is what one plugin's status --watch -A cost the apiserver
// over watchLength, from its start (its first reads included) to its exit.
type watchResult struct {
	name string
	// requests and bytes by kind of request: list (a page), watch, get.
	requests, bytes map[string]int
	// api and etcd are kube-apiserver's and etcd's CPU time meanwhile;
	// self the plugin's own, and rss its peak resident set.
	api, etcd, self time.Duration
	rss             int64
	wall            time.Duration
}

// watchCost runs each plugin's status --watch -A for watchLength against a
// switch that cannot finish: the controller stopped and the mode set to
// another one, so every tick plans every Route. Its requests reach the
// apiserver through a proxy that counts them and the bytes they answer.
func (b *bench) watchCost(mode netcfg.RouteAddressMode, r *result) error {
	other := netcfg.RouteAddressModeEndpointSlices
	if mode.Managed() {
		other = netcfg.RouteAddressModeExternalName
	}
	cluster.Stop(b.ctrl)
	if err := b.setMode(other); err != nil {
		return err
	}
	px, err := newCountingProxy(b.c.Config)
	if err != nil {
		return err
	}
	defer px.close()
	kubeconfig := filepath.Join(os.TempDir(), fmt.Sprintf("bench-watch-%d.kubeconfig", os.Getpid()))
	if err := os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: bench, cluster: {server: %q}}]
users: [{name: bench, user: {}}]
contexts: [{name: bench, context: {cluster: bench, user: bench}}]
current-context: bench
`, px.url)), 0o600); err != nil {
		return err
	}
	defer os.Remove(kubeconfig)
	for _, p := range plugins {
		px.reset()
		before, err := b.apiCPU()
		if err != nil {
			return err
		}
		start := time.Now()
		cmd := exec.Command(p.bin, "status", "--watch", "-A", "-o", "json", "--timeout", watchLength.String(), "--kubeconfig", kubeconfig)
		cmd.Stdout = io.Discard
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err = cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			return fmt.Errorf("%s status --watch: %v, want exit 3 at the timeout; stderr: %s", p.name, err, stderr.String())
		}
		after, err := b.apiCPU()
		if err != nil {
			return err
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		w := watchResult{
			name: p.name, wall: time.Since(start), api: after.api - before.api, etcd: after.etcd - before.etcd,
			self: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), rss: ru.Maxrss << 10,
		}
		w.requests, w.bytes = px.counts()
		log.Printf("watch %s: %v, requests %v, bytes %v, kube-apiserver CPU %v, etcd CPU %v, plugin CPU %v, peak RSS %d MiB",
			p.name, w.wall.Round(time.Second), w.requests, w.bytes, w.api, w.etcd, w.self, w.rss>>20)
		r.watch = append(r.watch, w)
	}
	if err := b.setMode(mode); err != nil {
		return err
	}
	if err := b.startController(); err != nil {
		return err
	}
	return b.waitShape(mode, gwIP)
}

// apiCPU is the CPU time of kube-apiserver and etcd so far.
func (b *bench) apiCPU() (cpuTimes, error) {
	var t cpuTimes
	var err error
	if t.api, err = procCPU(b.c.Pid("kube-apiserver")); err != nil {
		return t, err
	}
	t.etcd, err = procCPU(b.c.Pid("etcd"))
	return t, err
}

// countingProxy is a plain-HTTP reverse proxy to the apiserver that counts
// requests and the bytes of their answers by kind.
type countingProxy struct {
	url string
	srv *http.Server
	mu  sync.Mutex
	req map[string]int
	b   map[string]int
}

func newCountingProxy(cfg *rest.Config) (*countingProxy, error) {
	target, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	tr, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	px := &countingProxy{url: "http://" + ln.Addr().String()}
	px.reset()
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = tr
	rp.FlushInterval = -1 // watches stream
	rp.ModifyResponse = func(resp *http.Response) error {
		kind := requestKind(resp.Request)
		px.mu.Lock()
		px.req[kind]++
		px.mu.Unlock()
		resp.Body = &countingBody{ReadCloser: resp.Body, add: func(n int) {
			px.mu.Lock()
			px.b[kind] += n
			px.mu.Unlock()
		}}
		return nil
	}
	px.srv = &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = px.srv.Serve(ln) }()
	return px, nil
}

func (px *countingProxy) reset() {
	px.mu.Lock()
	defer px.mu.Unlock()
	px.req, px.b = map[string]int{}, map[string]int{}
}

func (px *countingProxy) counts() (map[string]int, map[string]int) {
	px.mu.Lock()
	defer px.mu.Unlock()
	return px.req, px.b
}

func (px *countingProxy) close() { _ = px.srv.Close() }

// requestKind is "watch", "list" (a collection: the path ends in a
// resource's plural) or "get".
func requestKind(r *http.Request) string {
	if w := r.URL.Query().Get("watch"); w == "true" || w == "1" {
		return "watch"
	}
	last := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
	switch last {
	case "routes", "ingresses", "services", "endpoints", "endpointslices", "configmaps", "leases", "deployments":
		return "list"
	}
	return "get"
}

type countingBody struct {
	io.ReadCloser
	add func(int)
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.add(n)
	return n, err
}

// printWatchTable prints the watch row's table: one line per column and
// plugin.
func printWatchTable(modes []netcfg.RouteAddressMode, rs map[netcfg.RouteAddressMode]*result, n int) {
	fmt.Printf("\nstatus --watch -A for %v at N=%d (the controller stopped, the mode switched: every tick plans every Route); requests and bytes through a counting proxy, CPU from /proc over the plugin's run\n\n", watchLength, n)
	fmt.Println("| column | plugin | wall | lists | watches | gets | MiB received | kube-apiserver CPU | etcd CPU | plugin CPU | plugin peak RSS |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, m := range modes {
		r := rs[m]
		if r == nil {
			continue
		}
		for _, w := range r.watch {
			total := 0
			for _, b := range w.bytes {
				total += b
			}
			fmt.Printf("| %s | %s | %.0f s | %d | %d | %d | %.1f | %.1f s | %.1f s | %.1f s | %d MiB |\n", m, w.name, w.wall.Seconds(),
				w.requests["list"], w.requests["watch"], w.requests["get"], float64(total)/(1<<20),
				w.api.Seconds(), w.etcd.Seconds(), w.self.Seconds(), w.rss>>20)
		}
	}
}
