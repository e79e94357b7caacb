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
	"bufio"
	"cmp"
	"context"
	"fmt"
	"log"
	"net/http"
	"os/exec"
	"runtime"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

// lateRoute creates Route name (one tag) in its own namespace, plays the
// ingress for it and returns the time until both its Services have mode's
// final shape.
func (b *bench) lateRoute(name string, mode netcfg.RouteAddressMode, ip string) (time.Duration, error) {
	ctx := context.Background()
	b.late++
	// Unique across runs on one -dir: the late Routes stay.
	name = fmt.Sprintf("%s-%d-%d", name, time.Now().Unix()%100000, b.late)
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
func (b *bench) serviceShaped(ctx context.Context, namespace, svc string, mode netcfg.RouteAddressMode, ip string) bool {
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
