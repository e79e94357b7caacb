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
//	bench -controller BIN [-n 1000] [-unrelated 10000] [-dir DIR]
package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	netclient "knative.dev/networking/pkg/client/clientset/versioned"
	"knative.dev/pkg/apis"
	duckv1 "knative.dev/pkg/apis/duck/v1"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	servingclient "knative.dev/serving/pkg/client/clientset/versioned"

	"knative.dev/route-address/pkg/controllers"
	"knative.dev/route-address/pkg/reconciler/routeaddress/config"
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
	// rssEmpty is the controller's peak RSS (KiB) before any Route exists.
	rssEmpty int
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
	mode     config.Mode
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
	ctrlBin := flag.String("controller", "", "controller binary (test/cmd/controller)")
	n := flag.Int("n", 1000, "Routes, each with one tag")
	unrelated := flag.Int("unrelated", 10000, "unrelated EndpointSlices for the memory row")
	dir := flag.String("dir", "", "work directory (default: a temporary one)")
	// sharedmain gives the client QPS 5 and burst 10 per controller when
	// nothing is set: what serving's binary with route-address runs with.
	ctors := len(controllers.Constructors())
	qps := flag.Int("qps", 5*ctors, "the controller's client QPS (default: sharedmain's for the binary's controllers)")
	burst := flag.Int("burst", 10*ctors, "the controller's client burst (default: sharedmain's)")
	namespaces := flag.Int("namespaces", 1, "spread the N Routes over this many namespaces (bench-0 … bench-{K-1}; 1: the namespace bench)")
	modeList := flag.String("modes", "ExternalName,EndpointSlices,EndpointsAndSlices", "the columns: route-address-mode values, comma-separated")
	profiles := flag.String("profiles", "", "write CPU profiles of the controller over each measured global resync here (pprof files and `go tool pprof -top -cum` text)")
	altList := flag.String("alt", "", "more controller binaries, NAME[@MODE]=BIN,…: the resync rows again with each, in each column (or MODE's only), e.g. one built with a patched knative.dev/pkg, or serving's stock controller @ExternalName")
	flag.BoolVar(&resyncOnly, "resync-only", false, "measure creation and the resync rows only (no mode switch, gateway move or unrelated slices)")
	flag.IntVar(&samples, "samples", 1, "measure the resync rows (a global resync; a new Route idle and during a resync) this many times and print medians and ranges")
	flag.IntVar(&floorCap, "floor-cap", 0, "time at most this many writes of each floor and scale the time up linearly (0: all; at a client QPS limit the floor is linear in its writes)")
	flag.Parse()
	if samples < 1 {
		log.Fatalf("-samples %d: want 1 or more", samples)
	}
	limits = clientLimits{qps: *qps, burst: *burst, ctors: ctors}
	if *ctrlBin == "" {
		log.Fatal("-controller is required")
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "route-address-bench-")
		if err != nil {
			log.Fatal(err)
		}
		*dir = d
		defer os.RemoveAll(d)
	}
	var modes []config.Mode
	for _, m := range strings.Split(*modeList, ",") {
		ra, err := config.NewRouteAddressFromMap(map[string]string{config.ModeKey: m})
		if err != nil {
			log.Fatalf("-modes: %v", err)
		}
		modes = append(modes, ra.Mode)
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
				ra, err := config.NewRouteAddressFromMap(map[string]string{config.ModeKey: only})
				if err != nil {
					log.Fatalf("-alt %s: %v", name, err)
				}
				if !slices.Contains(modes, ra.Mode) {
					log.Fatalf("-alt %s: %s is not one of -modes %s", name, ra.Mode, *modeList)
				}
				a.only = ra.Mode
			}
			alts = append(alts, a)
		}
	}
	if *profiles != "" {
		if err := os.MkdirAll(*profiles, 0o755); err != nil {
			log.Fatal(err)
		}
	}
	results := map[config.Mode]*result{}
	for _, m := range modes {
		log.Printf("=== %s, N=%d in %d namespaces", m, *n, *namespaces)
		r, err := runColumn(filepath.Join(*dir, string(m)), *ctrlBin, m, *n, *unrelated, namespacesFor(*namespaces), *profiles)
		if err != nil {
			log.Fatalf("%s: %v", m, err)
		}
		results[m] = r
	}
	printTable(modes, results, *n, *unrelated, *namespaces)
}

// alt is another controller binary whose resync rows are measured too, in
// every column or only in the column of mode only.
type alt struct {
	name, bin string
	only      config.Mode
}

var (
	alts       []alt
	resyncOnly bool
	// samples is -samples: how many times resyncRows measures.
	samples int
)

func runColumn(dir, ctrlBin string, mode config.Mode, n, unrelated int, nss []string, profiles string) (*result, error) {
	ctx := context.Background()
	c, err := cluster.Start(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer c.Stop()
	cfg := rest.CopyConfig(c.Config)
	cfg.QPS, cfg.Burst = 1000, 2000
	cfg.WarningHandler = rest.NoWarnings{}
	b := &bench{c: c, kube: kubernetes.NewForConfigOrDie(cfg), serving: servingclient.NewForConfigOrDie(cfg),
		net: netclient.NewForConfigOrDie(cfg), ctrlBin: ctrlBin, n: n, qps: limits.qps, burst: limits.burst, nss: nss, profiles: profiles, mode: mode}
	if err := b.setMode(mode); err != nil {
		return nil, err
	}
	// The profiling server: CPU profiles (-profiles) and the allocation
	// totals of the resync rows.
	if err := b.enableProfiling(); err != nil {
		return nil, err
	}
	if err := b.startController(); err != nil {
		return nil, err
	}
	defer func() { cluster.Stop(b.ctrl) }()
	for _, name := range append([]string{gwNS, "noise", "floor"}, b.nss...) {
		if _, err := b.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
	}
	if err := b.gateway(gwIP); err != nil {
		return nil, err
	}
	r := &result{}
	time.Sleep(2 * time.Second) // the controller's informers are up
	if r.rssEmpty, err = b.peakRSS(); err != nil {
		return nil, err
	}

	// Creation.
	start := time.Now()
	if err := b.createRoutes(); err != nil {
		return nil, err
	}
	if err := b.waitShape(mode, gwIP); err != nil {
		return nil, err
	}
	r.create = time.Since(start)
	time.Sleep(2 * time.Second)
	r.createW, r.createAll = b.writes(start), b.allWrites(start)
	log.Printf("created and shaped in %v with %d writes (%d to Services, Endpoints, EndpointSlices)", r.create, r.createAll, r.createW)
	if r.floorCreate, err = b.floor(r.createAll); err != nil {
		return nil, err
	}
	if r.floorFree, err = b.floorUnthrottled(2000); err != nil {
		return nil, err
	}

	// Steady state: a forced resync of every reconciler.
	start = time.Now()
	if err := b.restart(); err != nil {
		return nil, err
	}
	time.Sleep(resyncWait(n))
	// At serving's client limits upstream's resync can outlast the fixed
	// wait: count until it is over.
	if err := b.quiet(); err != nil {
		return nil, err
	}
	r.resyncW = b.writes(start)
	log.Printf("forced resync: %d writes", r.resyncW)

	rows, err := b.resyncRows("")
	if err != nil {
		return nil, err
	}
	r.rows = rows
	time.Sleep(resyncWait(n))
	// A change of a key nothing parses: the route reconciler resyncs,
	// routeaddress does not.
	unread, err := b.resyncCPU(b.unreadChange, "unread")
	if err != nil {
		return nil, err
	}
	r.unreadCPU, r.unreadW, r.unreadTime = unread.cpu, unread.w, unread.dur
	log.Printf("unread-key change: %v, %d writes, CPU %+v", r.unreadTime, r.unreadW, r.unreadCPU)
	altRan := false
	for _, a := range alts {
		if a.only != "" && a.only != mode {
			r.alts = append(r.alts, altResult{})
			continue
		}
		b.ctrlBin = a.bin
		if err := b.restart(); err != nil {
			return nil, err
		}
		time.Sleep(resyncWait(n))
		ar, err := b.resyncRows(a.name)
		if err != nil {
			return nil, fmt.Errorf("-alt %s: %w", a.name, err)
		}
		r.alts = append(r.alts, ar)
		b.ctrlBin = ctrlBin
		altRan = true
	}

	if resyncOnly {
		if r.rssBase, err = b.peakRSSAfterRestart(n); err != nil {
			return nil, err
		}
		r.rssNoise = r.rssBase
		return r, nil
	}
	if altRan {
		// The rows below are the shipped binary's.
		if err := b.restart(); err != nil {
			return nil, err
		}
		time.Sleep(resyncWait(n))
	}

	if mode.Managed() {
		// Back to ExternalName, and here again.
		start = time.Now()
		if err := b.setMode(config.ModeExternalName); err != nil {
			return nil, err
		}
		if err := b.waitShape(config.ModeExternalName, gwIP); err != nil {
			return nil, err
		}
		r.toExtName = time.Since(start)
		time.Sleep(time.Second)
		r.toW = b.allWrites(start)
		if r.floorTo, err = b.floor(r.toW); err != nil {
			return nil, err
		}
		start = time.Now()
		if err := b.setMode(mode); err != nil {
			return nil, err
		}
		if err := b.waitShape(mode, gwIP); err != nil {
			return nil, err
		}
		r.fromExtName = time.Since(start)
		time.Sleep(time.Second)
		r.fromW = b.allWrites(start)
		log.Printf("→ ExternalName %v, → %s %v", r.toExtName, mode, r.fromExtName)
		if r.floorFrom, err = b.floor(r.fromW); err != nil {
			return nil, err
		}

		// The gateway gets a new ClusterIP.
		if r.follow, r.followW, err = b.moveGateway(mode, gwIP2); err != nil {
			return nil, err
		}
		log.Printf("followed the new gateway ClusterIP in %v", r.follow)
		if r.floorFollow, err = b.floor(r.followW); err != nil {
			return nil, err
		}

		// The gateway's ClusterIP changes back right after a global
		// resync began.
		if err := b.quiet(); err != nil {
			return nil, err
		}
		if err := b.globalResync(); err != nil {
			return nil, err
		}
		time.Sleep(100 * time.Millisecond) // the ConfigMap event reaches the controller
		if r.followResync, r.followResyncW, err = b.moveGateway(mode, gwIP); err != nil {
			return nil, err
		}
		log.Printf("followed a new gateway ClusterIP during a resync in %v (%d writes)", r.followResync, r.followResyncW)
		if err := b.quiet(); err != nil {
			return nil, err
		}
	}

	// Memory: peak RSS after a restart, without and with unrelated slices.
	if r.rssBase, err = b.peakRSSAfterRestart(n); err != nil {
		return nil, err
	}
	r.rssNoise = r.rssBase
	if unrelated > 0 {
		if err := b.unrelatedSlices(unrelated); err != nil {
			return nil, err
		}
		if r.rssNoise, err = b.peakRSSAfterRestart(n); err != nil {
			return nil, err
		}
	}
	log.Printf("peak RSS %d MiB, with %d unrelated slices %d MiB", r.rssBase>>10, unrelated, r.rssNoise>>10)
	return r, nil
}

func resyncWait(n int) time.Duration {
	return max(10*time.Second, time.Duration(n)*20*time.Millisecond)
}

// floorCap bounds the writes a floor times (-floor-cap).
var floorCap int

// clientLimits are the controller's, for the table header.
type clientLimits struct{ qps, burst, ctors int }

var limits clientLimits

// lateRoute creates Route name (one tag) in its own namespace, plays the
// ingress for it and returns the time until both its Services have mode's
// final shape.
func (b *bench) lateRoute(name string, mode config.Mode, ip string) (time.Duration, error) {
	ctx := context.Background()
	b.late++
	name = fmt.Sprintf("%s-%d", name, b.late)
	lns := "late-" + name
	start := time.Now()
	if _, err := b.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: lns}}, metav1.CreateOptions{}); err != nil {
		return 0, err
	}
	if err := b.createRoute(lns, name); err != nil {
		return 0, err
	}
	lb := []netv1alpha1.LoadBalancerIngressStatus{{DomainInternal: gwDomain}}
	deadline := time.Now().Add(b.patience())
	for {
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("Route %s/%s not shaped in %v", lns, name, b.patience())
		}
		ing, err := b.net.NetworkingV1alpha1().Ingresses(lns).Get(ctx, name, metav1.GetOptions{})
		if err == nil && !ing.IsReady() {
			ing.Status.ObservedGeneration = ing.Generation
			ing.Status.MarkNetworkConfigured()
			ing.Status.MarkLoadBalancerReady(lb, lb)
			_, _ = b.net.NetworkingV1alpha1().Ingresses(lns).UpdateStatus(ctx, ing, metav1.UpdateOptions{})
		}
		ok := err == nil
		for _, svc := range []string{name, "tag-" + name} {
			ok = ok && b.serviceShaped(ctx, lns, svc, mode, ip)
		}
		if ok {
			return time.Since(start), nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serviceShaped reports whether Service svc in namespace has mode's final
// shape: upstream's ExternalName, or headless with the mode's endpoints.
func (b *bench) serviceShaped(ctx context.Context, namespace, svc string, mode config.Mode, ip string) bool {
	s, err := b.kube.CoreV1().Services(namespace).Get(ctx, svc, metav1.GetOptions{})
	if err != nil {
		return false
	}
	if !mode.Managed() {
		return s.Spec.Type == corev1.ServiceTypeExternalName && s.Spec.ExternalName == gwDomain
	}
	if s.Spec.ClusterIP != corev1.ClusterIPNone {
		return false
	}
	if mode.WritesEndpointSlices() {
		sl, err := b.kube.DiscoveryV1().EndpointSlices(namespace).Get(ctx, svc+"-ipv4", metav1.GetOptions{})
		if err != nil || len(sl.Endpoints) != 1 || sl.Endpoints[0].Addresses[0] != ip {
			return false
		}
	}
	if mode.WritesEndpoints() {
		ep, err := b.kube.CoreV1().Endpoints(namespace).Get(ctx, svc, metav1.GetOptions{})
		if err != nil || len(ep.Subsets) != 1 || ep.Subsets[0].Addresses[0].IP != ip {
			return false
		}
	}
	return true
}

// resyncRows measures, with the controller now running, -samples times:
// one global resync (CPU, allocation and duration) and a new Route on an
// idle controller and right after a global resync began. The resync is the
// one every change of config-network starts in the route reconciler and
// routeaddress: every Route is queued before the new one. name tells the
// binary apart ("" for -controller).
func (b *bench) resyncRows(name string) (altResult, error) {
	ar := altResult{name: name}
	label := "resync"
	if name != "" {
		label += "-" + name
	}
	for i := range samples {
		// CPU and allocation per global resync, against the idle rate
		// of the same processes.
		s, err := b.resyncCPU(b.globalResync, label)
		if err != nil {
			return ar, err
		}
		log.Printf("%s (%d/%d): global resync %v, %d writes, CPU %+v, %d MiB allocated, %d GCs", cmp.Or(name, "as built"), i+1, samples, s.dur, s.w, s.cpu, s.alloc>>20, s.gcs)
		if err := b.quiet(); err != nil {
			return ar, err
		}
		if err := b.cpuIdle(); err != nil {
			return ar, err
		}
		if s.lateIdle, err = b.lateRoute("idle", b.mode, gwIP); err != nil {
			return ar, err
		}
		if err := b.quiet(); err != nil {
			return ar, err
		}
		if s.lateBusy, err = b.lateRouteBusy(); err != nil {
			return ar, err
		}
		if err := b.quiet(); err != nil {
			return ar, err
		}
		if err := b.cpuIdle(); err != nil {
			return ar, err
		}
		start := time.Now()
		if err := b.globalResync(); err != nil {
			return ar, err
		}
		time.Sleep(100 * time.Millisecond) // the ConfigMap event reaches the controller
		if s.lateResync, err = b.lateRoute("during-resync", b.mode, gwIP); err != nil {
			return ar, err
		}
		s.lateW = b.writes(start)
		log.Printf("%s (%d/%d): a new Route shaped in %v idle, %v with every core busy, %v during a resync (%d resync writes meanwhile)", cmp.Or(name, "as built"), i+1, samples, s.lateIdle, s.lateBusy, s.lateResync, s.lateW)
		ar.samples = append(ar.samples, s)
	}
	return ar, nil
}

// lateRouteBusy is lateRoute on an idle controller while a busy loop (a
// shell at the bench's priority) runs on every core, started 100 ms
// before the Route as the resync is in lateResync.
func (b *bench) lateRouteBusy() (time.Duration, error) {
	var loops []*exec.Cmd
	defer func() {
		for _, c := range loops {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}()
	for range runtime.NumCPU() {
		c := exec.Command("sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			return 0, err
		}
		loops = append(loops, c)
	}
	time.Sleep(100 * time.Millisecond)
	return b.lateRoute("busy", b.mode, gwIP)
}

// memStats reads the controller's runtime.MemStats totals from the
// profiling server (the heap profile's debug=1 text ends with them); false
// when it cannot.
func (b *bench) memStats() (runtime.MemStats, bool) {
	var m runtime.MemStats
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/heap?debug=1", profPort))
	if err != nil {
		return m, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return m, false
	}
	var alloc, gcs bool
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "# TotalAlloc = "); ok {
			_, err := fmt.Sscan(v, &m.TotalAlloc)
			alloc = err == nil
		}
		if v, ok := strings.CutPrefix(sc.Text(), "# NumGC = "); ok {
			_, err := fmt.Sscan(v, &m.NumGC)
			gcs = err == nil
		}
	}
	return m, alloc && gcs && sc.Err() == nil
}

// resyncCPU makes a change (change) and measures what it started: the
// CPU time the controller, kube-apiserver and etcd spent and what the
// controller allocated, each less what the same processes spend idle in
// as long; its writes, the controller's garbage collections and how long
// it ran. With -profiles it also records the controller's CPU profile over
// that time, as label. The returned sample's new-Route fields are unset.
func (b *bench) resyncCPU(change func() error, label string) (resyncSample, error) {
	var s resyncSample
	if err := b.quiet(); err != nil {
		return s, err
	}
	// A resync that writes nothing (ours) is not over when the writes
	// stop: wait until the controller's CPU is idle too.
	if err := b.cpuIdle(); err != nil {
		return s, err
	}
	const idleFor = 5 * time.Second
	t0, err := b.cpu()
	if err != nil {
		return s, err
	}
	// Reading the totals allocates too (the heap profile's text): two
	// reads back to back measure that, and it is taken off each window,
	// each of which holds one read.
	m00, ok00 := b.memStats()
	m0, ok0 := b.memStats()
	time.Sleep(idleFor)
	t1, _ := b.cpu()
	m1, ok1 := b.memStats()
	idle := t1.sub(t0)
	stopProfile := b.profile(label)
	start := time.Now()
	if err := change(); err != nil {
		return s, err
	}
	time.Sleep(time.Second)
	if err := b.quiet(); err != nil {
		return s, err
	}
	// The writes are over (quiet() returns 3 s after the last one); a
	// resync that writes nothing is over only once the controller's CPU
	// is idle again: count to then (cpuIdle returns after 2 s idle).
	if err := b.cpuIdle(); err != nil {
		return s, err
	}
	t2, _ := b.cpu()
	m2, ok2 := b.memStats()
	s.dur = time.Since(start)
	if err := stopProfile(); err != nil {
		return s, err
	}
	f := s.dur.Seconds() / idleFor.Seconds()
	s.cpu = t2.sub(t1).sub(idle.scale(f))
	s.w = b.writes(start)
	if s.memOK = ok00 && ok0 && ok1 && ok2; s.memOK {
		read := m0.TotalAlloc - m00.TotalAlloc
		net := func(a, b uint64) float64 { return max(float64(b)-float64(a)-float64(read), 0) }
		idleAlloc := net(m0.TotalAlloc, m1.TotalAlloc)
		s.alloc = uint64(max(net(m1.TotalAlloc, m2.TotalAlloc)-idleAlloc*f, 0))
		s.gcs = m2.NumGC - m1.NumGC
		log.Printf("%s: the controller allocated %d KiB idle in %v, %d KiB over %v from the change (a read of the totals: %d KiB)",
			label, uint64(idleAlloc)>>10, idleFor, uint64(net(m1.TotalAlloc, m2.TotalAlloc))>>10, s.dur, read>>10)
	}
	return s, nil
}

// enableProfiling turns on the profiling server sharedmain runs in the
// controller (config-observability runtime-profiling; PROFILING_PORT is
// set by startController).
func (b *bench) enableProfiling() error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "config-observability", Namespace: cluster.SystemNamespace},
		Data: map[string]string{"runtime-profiling": "enabled"}}
	_, err := b.kube.CoreV1().ConfigMaps(cluster.SystemNamespace).Create(context.Background(), cm, metav1.CreateOptions{})
	if apierrs.IsAlreadyExists(err) {
		_, err = b.kube.CoreV1().ConfigMaps(cluster.SystemNamespace).Patch(context.Background(), cm.Name,
			types.MergePatchType, []byte(`{"data":{"runtime-profiling":"enabled"}}`), metav1.PatchOptions{})
	}
	return err
}

// profile starts recording the controller's CPU profile in consecutive
// 5 s pieces, fetched back to back, until the returned func is called; it
// waits for the last piece and writes PROFILES/MODE-LABEL.txt: `go tool
// pprof -top -cum` of every piece recorded under that label so far (with
// -samples, all the samples' resyncs together). Without -profiles it does
// nothing.
func (b *bench) profile(label string) func() error {
	if b.profiles == "" {
		return func() error { return nil }
	}
	base := filepath.Join(b.profiles, fmt.Sprintf("%s-%s", b.mode, label))
	if b.pieces == nil {
		b.pieces = map[string][]string{}
	}
	stop := make(chan struct{})
	done := make(chan error, 1)
	bin := b.ctrlBin
	go func() {
		var err error
		for {
			select {
			case <-stop:
				pieces := b.pieces[base]
				if len(pieces) == 0 {
					done <- cmp.Or(err, errors.New("no profile recorded"))
					return
				}
				// The text is made once, after the last piece: running pprof
				// between pieces would leave gaps in what they cover. It
				// covers every sample's pieces so far.
				out, e := exec.Command("go", append([]string{"tool", "pprof", "-top", "-cum", "-nodecount=40", bin}, pieces...)...).CombinedOutput()
				if e != nil {
					err = cmp.Or(err, fmt.Errorf("go tool pprof: %w: %s", e, out))
				} else if e := os.WriteFile(base+".txt", out, 0o644); e != nil {
					err = cmp.Or(err, e)
				}
				done <- err
				return
			default:
			}
			piece := fmt.Sprintf("%s.%03d.pprof", base, len(b.pieces[base]))
			if e := fetch(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile?seconds=5", profPort), piece); e != nil {
				err = cmp.Or(err, e)
				time.Sleep(time.Second)
				continue
			}
			b.pieces[base] = append(b.pieces[base], piece)
		}
	}()
	return func() error {
		close(stop)
		return <-done
	}
}

// fetch GETs url into file.
func fetch(url, file string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// unreadChange changes a config-network key that nothing parses.
func (b *bench) unreadChange() error {
	b.unread++
	patch := fmt.Sprintf(`{"data":{"bench-unread":"%d"}}`, b.unread)
	_, err := b.kube.CoreV1().ConfigMaps(cluster.SystemNamespace).Patch(context.Background(), "config-network",
		types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

// patience is how long a wait may last before the run fails: at QPS 50
// creating N=5000 Routes alone takes upstream's route reconciler over ten
// minutes.
func (b *bench) patience() time.Duration {
	return max(15*time.Minute, time.Duration(b.n)*300*time.Millisecond)
}

// cpuIdle waits until the controller used under 5 % of a core over 2 s.
func (b *bench) cpuIdle() error {
	deadline := time.Now().Add(b.patience())
	for time.Now().Before(deadline) {
		t0, err := b.cpu()
		if err != nil {
			return err
		}
		time.Sleep(2 * time.Second)
		t1, err := b.cpu()
		if err != nil {
			return err
		}
		if t1.sub(t0).ctrl < 100*time.Millisecond {
			return nil
		}
	}
	return fmt.Errorf("the controller's CPU did not go idle in %v", b.patience())
}

// cpu reads the CPU time (user + system) of the controller, kube-apiserver
// and etcd from /proc.
func (b *bench) cpu() (cpuTimes, error) {
	var t cpuTimes
	for _, p := range []struct {
		pid int
		to  *time.Duration
	}{{b.ctrl.Process.Pid, &t.ctrl}, {b.c.Pid("kube-apiserver"), &t.api}, {b.c.Pid("etcd"), &t.etcd}} {
		d, err := procCPU(p.pid)
		if err != nil {
			return t, err
		}
		*p.to = d
	}
	return t, nil
}

// procCPU returns utime + stime of pid (fields 14 and 15 of
// /proc/PID/stat, in clock ticks of 1/100 s).
func procCPU(pid int) (time.Duration, error) {
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: fields count from the
	// last ')'.
	f := strings.Fields(string(s[strings.LastIndexByte(string(s), ')')+1:]))
	var utime, stime int64
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

func (b *bench) startController() error {
	cmd, err := cluster.StartControllerWithLimits(b.c, b.ctrlBin, b.qps, b.burst, fmt.Sprintf("PROFILING_PORT=%d", profPort))
	b.ctrl = cmd
	return err
}

func (b *bench) restart() error {
	cluster.Stop(b.ctrl)
	return b.startController()
}

// quiet waits until the Routes' namespace has seen no write for 3 s: the
// controller is idle (a restart's resync at QPS 50 outlasts a fixed wait).
func (b *bench) quiet() error {
	deadline := time.Now().Add(b.patience())
	for time.Now().Before(deadline) {
		if b.allWrites(time.Now().Add(-3*time.Second)) == 0 {
			return nil
		}
		time.Sleep(time.Second)
	}
	return fmt.Errorf("the controller did not go quiet in %v", b.patience())
}

// globalResync flips config-network's autocreate-cluster-domain-claims, a
// key that both the route reconciler's and routeaddress's stores parse (into
// netcfg.Config) and that nothing a Route's Services depend on reads (only
// DomainMappings, which the bench has none of), which makes both resync
// every Route. A key nothing parses no longer resyncs routeaddress.
func (b *bench) globalResync() error {
	b.resyncs++
	patch := fmt.Sprintf(`{"data":{"autocreate-cluster-domain-claims":"%t"}}`, b.resyncs%2 == 1)
	_, err := b.kube.CoreV1().ConfigMaps(cluster.SystemNamespace).Patch(context.Background(), "config-network",
		types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

func (b *bench) setMode(m config.Mode) error {
	patch := fmt.Sprintf(`{"data":{%q:%q}}`, config.ModeKey, m)
	_, err := b.kube.CoreV1().ConfigMaps(cluster.SystemNamespace).Patch(context.Background(), "config-network",
		types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

// moveGateway recreates the gateway Service with ClusterIP ip and returns
// the time until every Route follows and the writes made meanwhile.
func (b *bench) moveGateway(mode config.Mode, ip string) (time.Duration, int, error) {
	start := time.Now()
	if err := b.kube.CoreV1().Services(gwNS).Delete(context.Background(), "gateway", metav1.DeleteOptions{}); err != nil {
		return 0, 0, err
	}
	if err := b.gateway(ip); err != nil {
		return 0, 0, err
	}
	if err := b.waitShape(mode, ip); err != nil {
		return 0, 0, err
	}
	d := time.Since(start)
	time.Sleep(time.Second)
	return d, b.allWrites(start), nil
}

func (b *bench) gateway(ip string) error {
	_, err := b.kube.CoreV1().Services(gwNS).Create(context.Background(), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: gwNS, Name: "gateway"},
		Spec: corev1.ServiceSpec{ClusterIP: ip,
			Ports: []corev1.ServicePort{{Name: "http2", Port: 80, TargetPort: intstr.FromInt32(8081)}}},
	}, metav1.CreateOptions{})
	return err
}

// parallel runs f(i) for i in [0,n) on 16 workers.
func parallel(n int, f func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	ch := make(chan int)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ch {
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		ch <- i
	}
	close(ch)
	wg.Wait()
	return first
}

// createRoutes creates N ready Revisions and Routes (one tag each) and plays
// the ingress: every KIngress gets a ready status whose DomainInternal names
// the gateway.
func (b *bench) createRoutes() error {
	ctx := context.Background()
	err := parallel(b.n, func(i int) error { return b.createRoute(b.nss[i%len(b.nss)], fmt.Sprintf("r%d", i)) })
	if err != nil {
		return err
	}
	lb := []netv1alpha1.LoadBalancerIngressStatus{{DomainInternal: gwDomain}}
	done := map[string]bool{}
	deadline := time.Now().Add(b.patience())
	for len(done) < b.n {
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d KIngresses appeared", len(done), b.n)
		}
		var todo []*netv1alpha1.Ingress
		for _, ns := range b.nss {
			l, err := b.net.NetworkingV1alpha1().Ingresses(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			for i := range l.Items {
				if !done[ns+"/"+l.Items[i].Name] {
					todo = append(todo, &l.Items[i])
				}
			}
		}
		if err := parallel(len(todo), func(i int) error {
			ing := todo[i]
			ing.Status.ObservedGeneration = ing.Generation
			ing.Status.MarkNetworkConfigured()
			ing.Status.MarkLoadBalancerReady(lb, lb)
			_, err := b.net.NetworkingV1alpha1().Ingresses(ing.Namespace).UpdateStatus(ctx, ing, metav1.UpdateOptions{})
			return err
		}); err != nil {
			log.Printf("KIngress status (will retry): %v", err)
			continue
		}
		for _, ing := range todo {
			done[ing.Namespace+"/"+ing.Name] = true
		}
		if len(done) < b.n {
			time.Sleep(pollEvery)
		}
	}
	return nil
}

// createRoute creates a ready Revision and a Route to it with one tag.
func (b *bench) createRoute(namespace, name string) error {
	ctx := context.Background()
	rev, err := b.serving.ServingV1().Revisions(namespace).Create(ctx, &v1.Revision{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name + "-00001"},
		Spec:       v1.RevisionSpec{PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Image: "example.com/hello"}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	rev.Status.ObservedGeneration = rev.Generation
	rev.Status.Conditions = duckv1.Conditions{{Type: apis.ConditionReady, Status: corev1.ConditionTrue}}
	if _, err := b.serving.ServingV1().Revisions(namespace).UpdateStatus(ctx, rev, metav1.UpdateOptions{}); err != nil {
		return err
	}
	_, err = b.serving.ServingV1().Routes(namespace).Create(ctx, &v1.Route{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: v1.RouteSpec{Traffic: []v1.TrafficTarget{
			{RevisionName: rev.Name, Percent: ptr.To[int64](100), LatestRevision: ptr.To(false)},
			{RevisionName: rev.Name, Tag: "tag", LatestRevision: ptr.To(false)},
		}},
	}, metav1.CreateOptions{})
	return err
}

// waitShape waits until all 2N Services have the final shape of mode.
func (b *bench) waitShape(mode config.Mode, ip string) error {
	ctx := context.Background()
	deadline := time.Now().Add(b.patience())
	for time.Now().Before(deadline) {
		ok, err := b.shaped(ctx, mode, ip)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		time.Sleep(pollEvery)
	}
	return fmt.Errorf("not shaped for %s within %v", mode, b.patience())
}

func (b *bench) shaped(ctx context.Context, mode config.Mode, ip string) (bool, error) {
	per := b.n / len(b.nss)
	for i, ns := range b.nss {
		n := per
		if i < b.n%len(b.nss) {
			n++
		}
		ok, err := b.shapedIn(ctx, ns, n, mode, ip)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// shapedIn reports whether the n Routes in ns have mode's final shape.
func (b *bench) shapedIn(ctx context.Context, ns string, routes int, mode config.Mode, ip string) (bool, error) {
	svcs, err := b.kube.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	good := 0
	for _, s := range svcs.Items {
		if mode.Managed() {
			if s.Spec.ClusterIP == corev1.ClusterIPNone {
				good++
			}
		} else if s.Spec.Type == corev1.ServiceTypeExternalName && s.Spec.ExternalName == gwDomain {
			good++
		}
	}
	if good != 2*routes {
		return false, nil
	}
	slices, err := b.kube.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{
		LabelSelector: discoveryv1.LabelManagedBy + "=routeaddress-controller.knative.dev"})
	if err != nil {
		return false, err
	}
	withIP := 0
	for _, s := range slices.Items {
		if len(s.Endpoints) == 1 && len(s.Endpoints[0].Addresses) == 1 && s.Endpoints[0].Addresses[0] == ip {
			withIP++
		}
	}
	want := 0
	if mode.WritesEndpointSlices() {
		want = 2 * routes
	}
	if withIP != want || len(slices.Items) != want {
		return false, nil
	}
	if mode.WritesEndpoints() {
		eps, err := b.kube.CoreV1().Endpoints(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		n := 0
		for _, e := range eps.Items {
			if len(e.Subsets) == 1 && len(e.Subsets[0].Addresses) == 1 && e.Subsets[0].Addresses[0].IP == ip {
				n++
			}
		}
		return n == 2*routes, nil
	}
	return true, nil
}

// writes counts the writes to Services, Endpoints and EndpointSlices in
// the Routes' namespaces since since.
func (b *bench) writes(since time.Time) int { return b.count(since, b.c.AuditWrites) }

// allWrites counts every object write in the Routes' namespaces since
// since: Revisions, Routes, KIngresses and their status too (not Events).
func (b *bench) allWrites(since time.Time) int { return b.count(since, b.c.AuditAllWrites) }

// count counts what audit finds in the Routes' namespaces, in one pass over
// the audit log (one pass per namespace made every wait on quiet() take tens
// of seconds at 10 000 Routes in 100 namespaces).
func (b *bench) count(since time.Time, audit func(time.Time, ...string) ([]cluster.AuditEvent, error)) int {
	ws, err := audit(since, b.nss...)
	if err != nil {
		log.Fatal(err)
	}
	return len(ws)
}

// floor times k Service creates from one client with the controller's
// limits, one after another. It runs right after the
// phase it is the floor of, so that both see the same machine: the time
// per write on these shared machines drifts by half within one run.
func (b *bench) floor(k int) (time.Duration, error) {
	k = max(k, 1)
	if floorCap > 0 && k > floorCap {
		d, err := b.floor(floorCap)
		return d * time.Duration(k) / time.Duration(floorCap), err
	}
	cfg := rest.CopyConfig(b.c.Config)
	cfg.QPS, cfg.Burst = float32(b.qps), b.burst
	kc := kubernetes.NewForConfigOrDie(cfg)
	b.floors++
	start := time.Now()
	for i := range k {
		if err := b.floorService(kc, i); err != nil {
			return 0, err
		}
	}
	d := time.Since(start)
	log.Printf("floor for %d writes: %v", k, d)
	// Leave nothing behind for the controller's caches and the memory row.
	return d, parallel(k, func(i int) error {
		return b.kube.CoreV1().Services("floor").Delete(context.Background(), fmt.Sprintf("f%d-%d", b.floors, i), metav1.DeleteOptions{})
	})
}

// floorService creates the i-th headless Service of the current floor.
func (b *bench) floorService(kc kubernetes.Interface, i int) error {
	_, err := kc.CoreV1().Services("floor").Create(context.Background(), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("f%d-%d", b.floors, i)},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone,
			Ports: []corev1.ServicePort{{Name: "http2", Port: 80}}},
	}, metav1.CreateOptions{})
	return err
}

// floorUnthrottled times k Service creates from 8 parallel clients without
// a client rate limit and returns the time per write: how fast this
// apiserver and etcd take writes on this machine.
func (b *bench) floorUnthrottled(k int) (time.Duration, error) {
	cfg := rest.CopyConfig(b.c.Config)
	cfg.QPS, cfg.Burst = -1, 0
	b.floors++
	clients := make([]kubernetes.Interface, 8)
	for i := range clients {
		clients[i] = kubernetes.NewForConfigOrDie(cfg)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	start := time.Now()
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < k; i += len(clients) {
				if err := b.floorService(clients[w], i); err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	d := time.Since(start)
	if first != nil {
		return 0, first
	}
	log.Printf("unthrottled floor for %d writes: %v", k, d)
	return d / time.Duration(k), parallel(k, func(i int) error {
		return b.kube.CoreV1().Services("floor").Delete(context.Background(), fmt.Sprintf("f%d-%d", b.floors, i), metav1.DeleteOptions{})
	})
}

func (b *bench) unrelatedSlices(u int) error {
	return parallel(u, func(i int) error {
		_, err := b.kube.DiscoveryV1().EndpointSlices("noise").Create(context.Background(), &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("noise-%d", i), Labels: map[string]string{
				discoveryv1.LabelServiceName: fmt.Sprintf("svc-%d", i%500),
				discoveryv1.LabelManagedBy:   "some-other-controller.example.com",
			}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{fmt.Sprintf("198.18.%d.%d", 10+i/250, 1+i%250)}}},
		}, metav1.CreateOptions{})
		return err
	})
}

// peakRSSAfterRestart restarts the controller, lets it resync, and reads
// its peak resident set (VmHWM) in KiB.
func (b *bench) peakRSSAfterRestart(n int) (int, error) {
	if err := b.restart(); err != nil {
		return 0, err
	}
	time.Sleep(resyncWait(n))
	if err := b.quiet(); err != nil {
		return 0, err
	}
	return b.peakRSS()
}

// peakRSS reads the controller's peak resident set (VmHWM) in KiB.
func (b *bench) peakRSS() (int, error) {
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", b.ctrl.Process.Pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(s), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb int
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%d", &kb)
			return kb, nil
		}
	}
	return 0, fmt.Errorf("no VmHWM")
}

func printTable(modes []config.Mode, rs map[config.Mode]*result, n, unrelated, namespaces int) {
	col := func(f func(*result, config.Mode) string) string {
		var cells []string
		for _, m := range modes {
			cells = append(cells, f(rs[m], m))
		}
		return strings.Join(cells, " | ")
	}
	secs := func(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
	// floor is the time k writes took from a tight client loop.
	ratio := func(d time.Duration, k int, floor time.Duration) string {
		return fmt.Sprintf("%s, %d writes (%.2f× floor %.1f s)", secs(d), k, d.Seconds()/floor.Seconds(), floor.Seconds())
	}
	perWrite := func(floor time.Duration, k int) string {
		return fmt.Sprintf("%.1f", floor.Seconds()*1000/float64(max(k, 1)))
	}
	fmt.Printf("\nN=%d Routes, each with one tag (%d Services), in %d namespace(s); KIngress DomainInternal → one gateway Service.\n", n, 2*n, namespaces)
	fmt.Printf("Controller client limits: QPS %d, burst %d (sharedmain's default for serving's binary with route-address: %d controllers × 5 / × 10 = %d / %d).\n",
		limits.qps, limits.burst, limits.ctors, 5*limits.ctors, 10*limits.ctors)
	fmt.Printf("Writes in a time's cell are every object write of that phase in the Routes' namespaces (audit log, not Events);\n" +
		"its floor is that many writes from a tight client loop, measured right after the phase.\n\n")
	header, rule := "| measure |", "|---|"
	for _, m := range modes {
		if m.Managed() {
			header += fmt.Sprintf(" ours (`%s`) |", m)
		} else {
			header += " upstream (`ExternalName` mode) |"
		}
		rule += "---|"
	}
	if floorCap > 0 {
		fmt.Printf("Floors of more than %d writes are timed on %d and scaled linearly.\n\n", floorCap, floorCap)
	}
	fmt.Printf("%s\n%s\n", header, rule)
	fmt.Printf("| time until every Route's Services have their final shape after creation | %s |\n", col(func(r *result, _ config.Mode) string { return ratio(r.create, r.createAll, r.floorCreate) }))
	fmt.Printf("| API writes to Services/Endpoints/EndpointSlices during that (audit log) | %s |\n", col(func(r *result, _ config.Mode) string { return fmt.Sprint(r.createW) }))
	fmt.Printf("| API writes per Route during one forced global resync in steady state | %s |\n", col(func(r *result, _ config.Mode) string { return fmt.Sprintf("%.2f", float64(r.resyncW)/float64(n)) }))
	fmt.Printf("| a new Route: time until its names have their final shape, on an idle controller → right after a global resync began (a config-network change; the resync's writes meanwhile) | %s |\n",
		col(func(r *result, _ config.Mode) string { return lateCell(r.rows) }))
	fmt.Printf("| the control: a new Route on an idle controller while a busy loop runs on every core (no work queued ahead of it) | %s |\n",
		col(func(r *result, _ config.Mode) string { return busyCell(r.rows) }))
	fmt.Printf("| one global resync (a config-network change): from the change until the controller's CPU has been idle 2 s and no write seen for 3 s (the bench's 1 s sleep and those waits included) | %s |\n",
		col(func(r *result, _ config.Mode) string { return durCell(r.rows) }))
	fmt.Printf("| CPU seconds over that whole resync (idle rate subtracted): controller / kube-apiserver / etcd (the resync's writes) | %s |\n",
		col(func(r *result, _ config.Mode) string { return cpuCell(r.rows) }))
	fmt.Printf("| allocated by the controller over that resync, per Route; its garbage collections | %s |\n",
		col(func(r *result, _ config.Mode) string { return allocCell(r.rows, n) }))
	fmt.Printf("| a change of a config-network key nothing parses (`bench-unread`): duration; CPU seconds controller / kube-apiserver / etcd (writes) | %s |\n",
		col(func(r *result, _ config.Mode) string {
			c := r.unreadCPU
			return fmt.Sprintf("%.1f s; %.2f / %.2f / %.2f (%d writes)", r.unreadTime.Seconds(), c.ctrl.Seconds(), c.api.Seconds(), c.etcd.Seconds(), r.unreadW)
		}))
	for i, a := range alts {
		alt := func(f func(altResult) string) func(*result, config.Mode) string {
			return func(r *result, _ config.Mode) string {
				if x := r.alts[i]; x.name != "" {
					return f(x)
				}
				return "n/a"
			}
		}
		fmt.Printf("| with `%s`: a new Route, idle → right after a global resync began (writes meanwhile) | %s |\n", a.name, col(alt(lateCell)))
		fmt.Printf("| with `%s`: the control, a new Route on an idle controller with every core busy | %s |\n", a.name, col(alt(busyCell)))
		fmt.Printf("| with `%s`: one global resync's duration; CPU seconds controller / kube-apiserver / etcd (writes); allocated per Route, GCs | %s |\n", a.name,
			col(alt(func(x altResult) string { return durCell(x) + "; " + cpuCell(x) + "; " + allocCell(x, n) })))
	}
	if resyncOnly {
		fmt.Printf("| controller peak RSS (VmHWM): no Route → %d Routes, KiB per Route | %s |\n", n,
			col(func(r *result, _ config.Mode) string {
				return fmt.Sprintf("%d → %d MiB, %.1f KiB", r.rssEmpty>>10, r.rssBase>>10, float64(r.rssBase-r.rssEmpty)/float64(n))
			}))
		return
	}
	fmt.Printf("| time to converge after switching the mode from `ExternalName` (and back) | %s |\n", col(func(r *result, m config.Mode) string {
		if !m.Managed() {
			return "n/a"
		}
		return ratio(r.fromExtName, r.fromW, r.floorFrom) + "; back: " + ratio(r.toExtName, r.toW, r.floorTo)
	}))
	fmt.Printf("| time until every Route follows a new ClusterIP of the gateway Service | %s |\n", col(func(r *result, m config.Mode) string {
		if !m.Managed() {
			return "n/a"
		}
		return ratio(r.follow, r.followW, r.floorFollow)
	}))
	fmt.Printf("| every Route follows a new gateway ClusterIP: idle → made right after a global resync began (writes meanwhile) | %s |\n", col(func(r *result, m config.Mode) string {
		if !m.Managed() {
			return "n/a (a CNAME: nothing to write)"
		}
		return fmt.Sprintf("%.1f s → %.1f s (%.2f×, %d writes)", r.follow.Seconds(), r.followResync.Seconds(), r.followResync.Seconds()/r.follow.Seconds(), r.followResyncW)
	}))
	fmt.Printf("| controller peak RSS (VmHWM): no Route → %d Routes, KiB per Route | %s |\n", n,
		col(func(r *result, _ config.Mode) string {
			return fmt.Sprintf("%d → %d MiB, %.1f KiB", r.rssEmpty>>10, r.rssBase>>10, float64(r.rssBase-r.rssEmpty)/float64(n))
		}))
	fmt.Printf("| controller peak RSS (VmHWM) after a resync, without → with %d unrelated EndpointSlices | %s |\n", unrelated,
		col(func(r *result, _ config.Mode) string {
			return fmt.Sprintf("%d → %d MiB", r.rssBase>>10, r.rssNoise>>10)
		}))
	fmt.Printf("| floor: ms per write from a tight client loop (the controller's limits), measured after creation / switch / back / follow | %s |\n",
		col(func(r *result, m config.Mode) string {
			if !m.Managed() {
				return perWrite(r.floorCreate, r.createAll)
			}
			return perWrite(r.floorCreate, r.createAll) + " / " + perWrite(r.floorFrom, r.fromW) + " / " +
				perWrite(r.floorTo, r.toW) + " / " + perWrite(r.floorFollow, r.followW)
		}))
	fmt.Printf("| floor without a client limit: ms per write from 8 parallel unthrottled clients (2000 creates) | %s |\n",
		col(func(r *result, _ config.Mode) string {
			return fmt.Sprintf("%.2f", float64(r.floorFree.Microseconds())/1000)
		}))
}

// median returns the median of xs (the lower middle one of an even
// number), and their least and greatest.
func median[T cmp.Ordered](xs []T) (mid, lo, hi T) {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2], s[0], s[len(s)-1]
}

// of projects the samples through f.
func of[T any](a altResult, f func(resyncSample) T) []T {
	out := make([]T, len(a.samples))
	for i, s := range a.samples {
		out[i] = f(s)
	}
	return out
}

// lateCell is the new-Route cell: the medians idle → during a resync, their
// ratio and the most writes seen meanwhile; with more than one sample,
// each one's range.
func lateCell(a altResult) string {
	idle, il, ih := median(of(a, func(s resyncSample) time.Duration { return s.lateIdle }))
	during, dl, dh := median(of(a, func(s resyncSample) time.Duration { return s.lateResync }))
	_, _, w := median(of(a, func(s resyncSample) int { return s.lateW }))
	cell := fmt.Sprintf("%d ms → %d ms (%.2f×, %d writes)", idle.Milliseconds(), during.Milliseconds(), during.Seconds()/idle.Seconds(), w)
	if len(a.samples) > 1 {
		cell += fmt.Sprintf("; medians of %d: idle %d–%d ms, during %d–%d ms", len(a.samples), il.Milliseconds(), ih.Milliseconds(), dl.Milliseconds(), dh.Milliseconds())
	}
	return cell
}

// busyCell is the control of lateCell: the median new Route with every
// core busy, against the idle one; with more than one sample, the range.
func busyCell(a altResult) string {
	idle, _, _ := median(of(a, func(s resyncSample) time.Duration { return s.lateIdle }))
	busy, lo, hi := median(of(a, func(s resyncSample) time.Duration { return s.lateBusy }))
	cell := fmt.Sprintf("%d ms (%.2f× idle)", busy.Milliseconds(), busy.Seconds()/idle.Seconds())
	if len(a.samples) > 1 {
		cell += fmt.Sprintf("; median of %d, %d–%d ms", len(a.samples), lo.Milliseconds(), hi.Milliseconds())
	}
	return cell
}

// durCell is a resync's duration: the median, and the range of more than one.
func durCell(a altResult) string {
	d, lo, hi := median(of(a, func(s resyncSample) time.Duration { return s.dur }))
	if len(a.samples) == 1 {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f s (%.1f–%.1f)", d.Seconds(), lo.Seconds(), hi.Seconds())
}

// cpuCell is a resync's CPU seconds, each process's median, and the
// controller's range over more than one sample.
func cpuCell(a altResult) string {
	c, lo, hi := median(of(a, func(s resyncSample) time.Duration { return s.cpu.ctrl }))
	api, _, _ := median(of(a, func(s resyncSample) time.Duration { return s.cpu.api }))
	etcd, _, _ := median(of(a, func(s resyncSample) time.Duration { return s.cpu.etcd }))
	w, _, _ := median(of(a, func(s resyncSample) int { return s.w }))
	cell := fmt.Sprintf("%.2f / %.2f / %.2f (%d writes)", c.Seconds(), api.Seconds(), etcd.Seconds(), w)
	if len(a.samples) > 1 {
		cell += fmt.Sprintf("; medians of %d, controller %.2f–%.2f", len(a.samples), lo.Seconds(), hi.Seconds())
	}
	return cell
}

// allocCell is what the controller allocated over a resync per Route (the
// median) and its garbage collections meanwhile (the range).
func allocCell(a altResult, n int) string {
	for _, s := range a.samples {
		if !s.memOK {
			return "n/a (no profiling server)"
		}
	}
	alloc, lo, hi := median(of(a, func(s resyncSample) uint64 { return s.alloc }))
	_, gl, gh := median(of(a, func(s resyncSample) uint32 { return s.gcs }))
	kib := func(b uint64) float64 { return float64(b) / 1024 / float64(n) }
	cell := fmt.Sprintf("%.1f KiB; %d–%d GCs", kib(alloc), gl, gh)
	if len(a.samples) > 1 {
		cell = fmt.Sprintf("%.1f KiB (%.1f–%.1f); %d–%d GCs", kib(alloc), kib(lo), kib(hi), gl, gh)
	}
	return cell
}
