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
	"context"
	"fmt"
	"log"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	netclient "knative.dev/networking/pkg/client/clientset/versioned"
	servingclient "knative.dev/serving/pkg/client/clientset/versioned"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

func runColumn(dir, ctrlBin string, mode netcfg.RouteAddressMode, n, unrelated int, nss []string, profiles string) (*result, error) {
	ctx := context.Background()
	c, err := cluster.Start(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer c.Stop()
	cfg := rest.CopyConfig(c.Config)
	cfg.QPS, cfg.Burst = 1000, 2000
	cfg.WarningHandler = rest.NoWarnings{}
	b := &bench{
		c: c, kube: kubernetes.NewForConfigOrDie(cfg), serving: servingclient.NewForConfigOrDie(cfg),
		net: netclient.NewForConfigOrDie(cfg), ctrlBin: ctrlBin, n: n, qps: limits.qps, burst: limits.burst, nss: nss, profiles: profiles, mode: mode,
	}
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
		_, err := b.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		if err != nil && !apierrs.IsAlreadyExists(err) {
			return nil, err
		}
	}
	if err := b.gateway(gwIP); err != nil {
		return nil, err
	}
	r := &result{}
	time.Sleep(2 * time.Second) // the controller's informers are up
	existing, err := b.countRoutes(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case existing == 0:
		if r.rssEmpty, err = b.peakRSS(); err != nil {
			return nil, err
		}
		if err := b.create(mode, r); err != nil {
			return nil, err
		}
	case existing != n:
		return nil, fmt.Errorf("%s holds %d Routes, want none or -n %d", dir, existing, n)
	case rows[rowCreate]:
		return nil, fmt.Errorf("-rows %s needs a -dir without Routes; %s holds %d", rowCreate, dir, existing)
	default:
		log.Printf("reusing the %d Routes in %s", n, dir)
		if err := b.waitShape(mode, gwIP); err != nil {
			return nil, err
		}
	}

	if rows[rowSteady] {
		// Steady state: a forced resync of every reconciler.
		start := time.Now()
		if err := b.restart(); err != nil {
			return nil, err
		}
		time.Sleep(resyncWait(n))
		// At serving's client limits upstream's resync can outlast the
		// fixed wait: count until it is over.
		if err := b.quiet(); err != nil {
			return nil, err
		}
		r.resyncW = b.writes(start)
		log.Printf("forced resync: %d writes", r.resyncW)
	}
	if rows[rowResync] {
		if err := b.measureResyncs(ctrlBin, mode, r); err != nil {
			return nil, err
		}
	}
	if mode.Managed() && rows[rowSwitch] {
		if err := b.switchBack(mode, r); err != nil {
			return nil, err
		}
	}
	if mode.Managed() && rows[rowFollow] {
		if err := b.follow(mode, r); err != nil {
			return nil, err
		}
	}
	if rows[rowMemory] {
		if err := b.memory(n, unrelated, r); err != nil {
			return nil, err
		}
	}
	if rows[rowWatch] {
		if err := b.watchCost(mode, r); err != nil {
			return nil, err
		}
	}
	if mode.Managed() && rows[rowHA] {
		if err := b.ha(mode, r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// create creates the Routes, timed until every name has mode's shape, and
// times the floor of that many writes.
func (b *bench) create(mode netcfg.RouteAddressMode, r *result) error {
	start := time.Now()
	if err := b.createRoutes(); err != nil {
		return err
	}
	if err := b.waitShape(mode, gwIP); err != nil {
		return err
	}
	r.create = time.Since(start)
	time.Sleep(2 * time.Second)
	r.createW, r.createAll = b.writes(start), b.allWrites(start)
	log.Printf("created and shaped in %v with %d writes (%d to Services, Endpoints, EndpointSlices)", r.create, r.createAll, r.createW)
	if !rows[rowCreate] {
		return nil
	}
	var err error
	if r.floorCreate, err = b.floor(r.createAll); err != nil {
		return err
	}
	r.floorFree, err = b.floorUnthrottled(2000)
	return err
}

// measureResyncs measures the resync rows, with the shipped binary and each -alt.
func (b *bench) measureResyncs(ctrlBin string, mode netcfg.RouteAddressMode, r *result) error {
	n := b.n
	rs, err := b.resyncRows("")
	if err != nil {
		return err
	}
	r.rows = rs
	time.Sleep(resyncWait(n))
	// A change of a key nothing parses: the route reconciler resyncs,
	// routeaddress does not.
	unread, err := b.resyncCPU(b.unreadChange, "unread")
	if err != nil {
		return err
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
			return err
		}
		time.Sleep(resyncWait(n))
		ar, err := b.resyncRows(a.name)
		if err != nil {
			return fmt.Errorf("-alt %s: %w", a.name, err)
		}
		r.alts = append(r.alts, ar)
		b.ctrlBin = ctrlBin
		altRan = true
	}
	if altRan {
		// The rows after these are the shipped binary's.
		if err := b.restart(); err != nil {
			return err
		}
		time.Sleep(resyncWait(n))
	}
	return nil
}

// switchBack switches the mode to ExternalName and back to mode, each
// timed until every name has its shape, with their floors.
func (b *bench) switchBack(mode netcfg.RouteAddressMode, r *result) error {
	start := time.Now()
	if err := b.setMode(netcfg.RouteAddressModeExternalName); err != nil {
		return err
	}
	if err := b.waitShape(netcfg.RouteAddressModeExternalName, gwIP); err != nil {
		return err
	}
	r.toExtName = time.Since(start)
	time.Sleep(time.Second)
	r.toW = b.allWrites(start)
	var err error
	if r.floorTo, err = b.floor(r.toW); err != nil {
		return err
	}
	start = time.Now()
	if err := b.setMode(mode); err != nil {
		return err
	}
	if err := b.waitShape(mode, gwIP); err != nil {
		return err
	}
	r.fromExtName = time.Since(start)
	time.Sleep(time.Second)
	r.fromW = b.allWrites(start)
	log.Printf("→ ExternalName %v, → %s %v", r.toExtName, mode, r.fromExtName)
	r.floorFrom, err = b.floor(r.fromW)
	return err
}

// follow moves the gateway to a new ClusterIP and times every Route
// following it, with its floor; then moves it back right after a global
// resync began.
func (b *bench) follow(mode netcfg.RouteAddressMode, r *result) error {
	var err error
	if r.follow, r.followW, err = b.moveGateway(mode, gwIP2); err != nil {
		return err
	}
	log.Printf("followed the new gateway ClusterIP in %v", r.follow)
	if r.floorFollow, err = b.floor(r.followW); err != nil {
		return err
	}
	if err := b.quiet(); err != nil {
		return err
	}
	if err := b.globalResync(); err != nil {
		return err
	}
	time.Sleep(100 * time.Millisecond) // the ConfigMap event reaches the controller
	if r.followResync, r.followResyncW, err = b.moveGateway(mode, gwIP); err != nil {
		return err
	}
	log.Printf("followed a new gateway ClusterIP during a resync in %v (%d writes)", r.followResync, r.followResyncW)
	return b.quiet()
}

// memory reads the controller's peak RSS after a restart, without and with
// unrelated slices (made once per -dir).
func (b *bench) memory(n, unrelated int, r *result) error {
	var err error
	if r.rssBase, err = b.peakRSSAfterRestart(n); err != nil {
		return err
	}
	r.rssNoise = r.rssBase
	if b.profiles != "" {
		// What holds the heap at that point: -sample_index=inuse_space.
		heap := filepath.Join(b.profiles, fmt.Sprintf("%s-heap-n%d.pprof", b.mode, n))
		if err := fetch(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/heap", profPort), heap); err != nil {
			return err
		}
	}
	if unrelated > 0 {
		if err := b.unrelatedSlices(unrelated); err != nil {
			return err
		}
		if r.rssNoise, err = b.peakRSSAfterRestart(n); err != nil {
			return err
		}
	}
	log.Printf("peak RSS %d MiB, with %d unrelated slices %d MiB", r.rssBase>>10, unrelated, r.rssNoise>>10)
	// Each -alt binary on the same Routes, then the shipped one again.
	ctrlBin, altRan := b.ctrlBin, false
	for _, a := range alts {
		rss := 0
		if a.only == "" || a.only == b.mode {
			b.ctrlBin, altRan = a.bin, true
			if rss, err = b.peakRSSAfterRestart(n); err != nil {
				return fmt.Errorf("-alt %s: %w", a.name, err)
			}
			log.Printf("-alt %s: peak RSS %d MiB", a.name, rss>>10)
		}
		r.altRSS = append(r.altRSS, rss)
	}
	b.ctrlBin = ctrlBin
	if altRan {
		return b.restart()
	}
	return nil
}

func resyncWait(n int) time.Duration {
	return max(10*time.Second, time.Duration(n)*20*time.Millisecond)
}

// floorCap bounds the writes a floor times (-floor-cap).
var floorCap int

// clientLimits are the controller's, for the table header.
type clientLimits struct{ qps, burst, ctors int }

var limits clientLimits
