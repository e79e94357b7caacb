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

// bench measures route-address against upstream on the local control
// plane and prints one markdown table. Every figure in a row comes from the
// same run on the same machine; times are also given as a ratio to the
// apiserver's floor (the time a tight client loop takes to make the same
// number of writes with the controller's client limits).
//
//	bench -controller BIN [-n 1000] [-unrelated 10000] [-rows ROW,…] [-dir DIR]
//
// With -dir, each column's local control plane keeps its data there, and a
// later run with the same -dir and -n measures on the Routes an earlier one
// created (every row but create): create once, measure many.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	netclient "knative.dev/networking/pkg/client/clientset/versioned"
	servingclient "knative.dev/serving/pkg/client/clientset/versioned"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

const (
	gwNS      = "gw"
	gwIP      = "198.19.0.10"
	gwIP2     = "198.19.0.11"
	gwDomain  = "gateway.gw.svc.cluster.local"
	pollEvery = 250 * time.Millisecond
)

type result struct {
	// watch is the watch row: one result per -plugins binary.
	watch  []watchResult
	create time.Duration
	// createW counts the writes to Services, Endpoints and EndpointSlices;
	// createAll (and toW, fromW, followW) every object write in the Routes'
	// namespace, which is what each phase's floor is made of.
	createW     int
	createAll   int
	resyncW     int
	toExtName   time.Duration
	toW         int
	fromExtName time.Duration
	fromW       int
	follow      time.Duration
	followW     int
	// The floors of each timed phase: its number of writes from a tight
	// client loop, measured right after the phase.
	floorCreate time.Duration
	floorTo     time.Duration
	floorFrom   time.Duration
	floorFollow time.Duration
	rssBase     int
	rssNoise    int
	// Every Route follows a new gateway ClusterIP made right after a
	// global resync began, with the writes meanwhile.
	followResync  time.Duration
	followResyncW int
	// rows are the resync rows of the shipped binary (resyncRows).
	rows altResult
	// A change of a config-network key no reconciler parses (bench-unread):
	// CPU, writes and duration as in a resyncSample; routeaddress does not
	// resync, the route reconciler does.
	unreadCPU  cpuTimes
	unreadW    int
	unreadTime time.Duration
	// alts are the resync rows again with each -alt binary.
	alts []altResult
	// altRSS is each -alt binary's rssBase in this column (0: not run here).
	altRSS []int
	// rssEmpty is the controller's peak RSS (KiB) before any Route exists.
	rssEmpty int
	// ha is the ha row's switches, one per haSetups; failover its failover.
	ha       []haResult
	failover haFailover
	// floorFree is the time per write of 8 parallel clients without a
	// client rate limit: the apiserver's own limit on this machine.
	floorFree time.Duration
}

// altResult holds the resync rows measured with one controller binary:
// the shipped one, or another (-alt NAME=BIN) in the same column, on the
// same Routes; -samples of them.
type altResult struct {
	name    string
	samples []resyncSample
}

// resyncSample is one measurement of the resync rows.
type resyncSample struct {
	// cpu is the CPU time the controller, kube-apiserver and etcd spent on
	// one global resync (a config-network change), their idle rate
	// subtracted; w the resync's writes; dur from the change until the
	// controller's CPU has been idle for 2 s (and 3 s after the last
	// write, if it wrote), the bench's 1 s sleep and those waits included.
	cpu cpuTimes
	w   int
	dur time.Duration
	// alloc is what the controller allocated over that resync (bytes),
	// less its idle rate, and gcs the garbage collections it ran meanwhile
	// (runtime.MemStats' TotalAlloc and NumGC, read from its profiling
	// server); memOK is false when they could not be read.
	alloc uint64
	gcs   uint32
	memOK bool
	// A new Route created on an idle controller, and right after a forced
	// global resync began, with the resync's writes meanwhile.
	lateIdle, lateResync time.Duration
	lateW                int
	// lateBusy is a new Route on an idle controller while a busy loop runs
	// on every core: a machine as saturated as during a resync, with no
	// work queued ahead of the Route (the control for lateResync).
	lateBusy time.Duration
}

// cpuTimes are CPU times of the controller, kube-apiserver and etcd.
type cpuTimes struct{ ctrl, api, etcd time.Duration }

func (a cpuTimes) sub(b cpuTimes) cpuTimes {
	return cpuTimes{a.ctrl - b.ctrl, a.api - b.api, a.etcd - b.etcd}
}

func (a cpuTimes) scale(f float64) cpuTimes {
	return cpuTimes{time.Duration(float64(a.ctrl) * f), time.Duration(float64(a.api) * f), time.Duration(float64(a.etcd) * f)}
}

type bench struct {
	// notTook is the last count of writes that did not take effect that
	// count logged.
	notTook int
	c       *cluster.Cluster
	kube    kubernetes.Interface
	serving servingclient.Interface
	net     netclient.Interface
	ctrlBin string
	ctrl    *exec.Cmd
	n       int
	// qps and burst are the controller's client limits.
	qps, burst int
	floors     int
	// resyncs counts the global resyncs started (globalResync), unread
	// the changes of a key nothing parses (unreadChange): separately, since
	// globalResync flips its key by the parity of its own count.
	resyncs, unread int
	// nss are the namespaces the N Routes are spread over: Route i is in
	// nss[i % len(nss)].
	nss []string
	// profiles, when set, is where CPU profiles of the controller over
	// each measured resync go (pprof, from the profiling server sharedmain
	// runs on profPort).
	profiles string
	mode     netcfg.RouteAddressMode
	// late counts the new Routes made by lateRoute (their names).
	late int
	// pieces are the CPU profile files recorded so far under each
	// profile's name: the -samples resyncs of a row add up to one text.
	pieces map[string][]string
}

// profPort is the controller's PROFILING_PORT in the benchmark.
const profPort = 18008

// namespacesFor names k namespaces for the Routes: "bench" alone, or
// "bench-0" … "bench-{k-1}".
func namespacesFor(k int) []string {
	if k <= 1 {
		return []string{"bench"}
	}
	out := make([]string, k)
	for i := range out {
		out[i] = fmt.Sprintf("bench-%d", i)
	}
	return out
}

func main() {
	ctrlBin := flag.String("controller", "", "controller binary (serving's cmd/controller as the pull requests leave it: hack/build-serving.sh)")
	n := flag.Int("n", 1000, "Routes, each with one tag")
	unrelated := flag.Int("unrelated", 10000, "unrelated EndpointSlices for the memory row")
	dir := flag.String("dir", "", "work directory, kept: a later run with the same -dir and -n reuses its Routes (default: a temporary one, removed)")
	rowList := flag.String("rows", strings.Join(allRows, ","), "the rows to measure, in this order: "+strings.Join(allRows, ",")+" (create needs a -dir without Routes)")
	// sharedmain gives the client QPS 5 and burst 10 per controller when
	// nothing is set: what serving's cmd/controller runs with, whose
	// controllers are 10 as the pull requests leave it.
	const ctors = 10
	qps := flag.Int("qps", 5*ctors, "the controller's client QPS (default: sharedmain's for the binary's controllers)")
	burst := flag.Int("burst", 10*ctors, "the controller's client burst (default: sharedmain's)")
	namespaces := flag.Int("namespaces", 1, "spread the N Routes over this many namespaces (bench-0 … bench-{K-1}; 1: the namespace bench)")
	modeList := flag.String("modes", "ExternalName,EndpointSlices,EndpointsAndSlices", "the columns: route-address-mode values, comma-separated")
	profiles := flag.String("profiles", "", "write CPU profiles of the controller over each measured global resync here (pprof files and `go tool pprof -top -cum` text), and with the memory row its heap profile after the restart's resync")
	altList := flag.String("alt", "", "more controller binaries, NAME[@MODE]=BIN,…: the resync rows and the memory row's peak RSS again with each, in each column (or MODE's only), e.g. one built with a patched knative.dev/pkg, or serving's stock controller @ExternalName")
	flag.IntVar(&samples, "samples", 1, "measure the resync rows (a global resync; a new Route idle and during a resync) this many times and print medians and ranges")
	flag.IntVar(&floorCap, "floor-cap", 0, "time at most this many writes of each floor and scale the time up linearly (0: all; at a client QPS limit the floor is linear in its writes)")
	pluginList := flag.String("plugins", "", "kubectl-route_address binaries for the watch row, NAME=BIN,…")
	flag.DurationVar(&watchLength, "watch-length", watchLength, "how long the watch row runs each plugin's status --watch")
	flag.StringVar(&replicaBin, "replica", "", "the controller built with its health probes off, for the ha row's replicas (default: replica beside -controller, as hack/build-serving.sh builds it)")
	envList := flag.String("controller-env", "", "environment variables for the controller alone, NAME=VALUE,… (e.g. GOMEMLIMIT=500MiB)")
	flag.Parse()
	if *envList != "" {
		controllerEnv = strings.Split(*envList, ",")
	}
	if samples < 1 {
		log.Fatalf("-samples %d: want 1 or more", samples)
	}
	var err error
	if rows, err = parseRows(*rowList); err != nil {
		log.Fatal(err)
	}
	limits = clientLimits{qps: *qps, burst: *burst, ctors: ctors}
	if *ctrlBin == "" {
		log.Fatal("-controller is required")
	}
	if replicaBin == "" {
		replicaBin = filepath.Join(filepath.Dir(*ctrlBin), "replica")
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "route-address-bench-")
		if err != nil {
			log.Fatal(err)
		}
		*dir = d
		defer os.RemoveAll(d)
	}
	var modes []netcfg.RouteAddressMode
	for _, m := range strings.Split(*modeList, ",") {
		ra, err := netcfg.NewConfigFromMap(map[string]string{netcfg.RouteAddressModeKey: m})
		if err != nil {
			log.Fatalf("-modes: %v", err)
		}
		modes = append(modes, ra.RouteAddressMode)
	}
	if *altList != "" {
		for _, a := range strings.Split(*altList, ",") {
			name, bin, ok := strings.Cut(a, "=")
			if !ok {
				log.Fatalf("-alt %q: want NAME[@MODE]=BIN", a)
			}
			name, only, _ := strings.Cut(name, "@")
			a := alt{name: name, bin: bin}
			if only != "" {
				// Parsed as -modes are (lower case): "@ExternalName" once
				// matched no column and left the alternate's rows n/a.
				ra, err := netcfg.NewConfigFromMap(map[string]string{netcfg.RouteAddressModeKey: only})
				if err != nil {
					log.Fatalf("-alt %s: %v", name, err)
				}
				if !slices.Contains(modes, ra.RouteAddressMode) {
					log.Fatalf("-alt %s: %s is not one of -modes %s", name, ra.RouteAddressMode, *modeList)
				}
				a.only = ra.RouteAddressMode
			}
			alts = append(alts, a)
		}
	}
	if *pluginList != "" {
		for _, p := range strings.Split(*pluginList, ",") {
			name, bin, ok := strings.Cut(p, "=")
			if !ok {
				log.Fatalf("-plugins %q: want NAME=BIN", p)
			}
			plugins = append(plugins, plugin{name: name, bin: bin})
		}
	}
	if rows[rowWatch] && len(plugins) == 0 {
		log.Fatal("-rows watch needs -plugins")
	}
	if *profiles != "" {
		if err := os.MkdirAll(*profiles, 0o755); err != nil {
			log.Fatal(err)
		}
	}
	results := map[netcfg.RouteAddressMode]*result{}
	for _, m := range modes {
		log.Printf("=== %s, N=%d in %d namespaces", m, *n, *namespaces)
		r, err := runColumn(filepath.Join(*dir, string(m)), *ctrlBin, m, *n, *unrelated, namespacesFor(*namespaces), *profiles)
		if err != nil {
			log.Fatalf("%s: %v", m, err)
		}
		results[m] = r
	}
	printTable(modes, results, *n, *unrelated, *namespaces)
	if rows[rowWatch] {
		printWatchTable(modes, results, *n)
	}
	if rows[rowHA] {
		printHATable(modes, results, *n)
	}
}

// alt is another controller binary whose resync rows are measured too, in
// every column or only in the column of mode only.
type alt struct {
	name, bin string
	only      netcfg.RouteAddressMode
}

var (
	alts []alt
	// rows is -rows: the rows to measure.
	rows rowSet
	// samples is -samples: how many times resyncRows measures.
	samples int
)
