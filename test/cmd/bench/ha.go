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
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

// replicaBin is -replica: serving's controller with its health probes off
// (they listen on a fixed port, which replicas on one host would share).
var replicaBin string

// haBuckets is config-leader-election's buckets in the ha row: each
// reconciler's keys split over four leases, as Knative's HA docs set it.
const haBuckets = 4

// haSuffix ends the names of the bucket leases of haBuckets (those of one
// bucket, left by the single controller, end in "-of-01").
var haSuffix = fmt.Sprintf("-of-%02d", haBuckets)

// haSetup is one line of the ha row: how many replicas run and how their
// leases are taken.
type haSetup struct {
	name string
	// replicas run; the first alone until it holds every lease of every
	// reconciler when first is set (the others then hold none: the case
	// serving's leader election usually ends in), all at once otherwise.
	replicas int
	first    bool
	// stopOthers stops (SIGSTOP) every replica but the first for the
	// switch: the control, three processes of which two use no CPU.
	stopOthers bool
}

var haSetups = []haSetup{
	{name: "1 replica", replicas: 1},
	{name: "3 replicas, every lease on one", replicas: 3, first: true},
	{name: "3 replicas, every lease on one, the other two stopped", replicas: 3, first: true, stopOthers: true},
	{name: "3 replicas started together", replicas: 3},
}

// haResult is one line's switch, ExternalName → the column's mode.
type haResult struct {
	setup haSetup
	// holders says how many routeaddress leases each replica held.
	holders string
	dur     time.Duration
	// cpu is each replica's CPU time over the switch; api and etcd
	// kube-apiserver's and etcd's.
	cpu       []time.Duration
	api, etcd time.Duration
	// leases is the requests to Leases kube-apiserver served over the
	// switch (every replica's leader election), per second.
	leases float64
}

// haFailover is the failover: the replica holding the most routeaddress
// leases killed a third of the way into a switch.
type haFailover struct {
	// killedAt is how many names had the mode's shape when the replica
	// was killed; took is from the kill until every name has it; taken is
	// from the kill until every routeaddress lease is held by a live
	// replica again.
	killedAt    int
	took, taken time.Duration
	lease       time.Duration
}

type replicaProc struct {
	i   int
	cmd *exec.Cmd
	// from is the size of its log when it started (logs are appended to).
	from int64
}

func (r *replicaProc) log(c *cluster.Cluster) string {
	return filepath.Join(c.Dir, fmt.Sprintf("controller-%d.log", r.i))
}

// ha measures, in a managed mode, the switch from ExternalName back to the
// mode with each haSetup, then the failover. The single controller of the
// other rows is stopped meanwhile and started again after.
func (b *bench) ha(mode netcfg.RouteAddressMode, r *result) error {
	if err := cluster.PatchLeaderElection(context.Background(), b.kube, map[string]string{"buckets": fmt.Sprint(haBuckets)}); err != nil {
		return err
	}
	cluster.Stop(b.ctrl)
	defer func() {
		if err := cluster.PatchLeaderElection(context.Background(), b.kube, map[string]string{"buckets": ""}); err != nil {
			log.Printf("config-leader-election: %v", err)
		}
	}()
	for _, s := range haSetups {
		res, err := b.haSwitch(mode, s)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		r.ha = append(r.ha, res)
	}
	f, err := b.failover(mode)
	if err != nil {
		return fmt.Errorf("failover: %w", err)
	}
	r.failover = f
	return b.startController()
}

// haSwitch starts s's replicas, switches to ExternalName, then times the
// switch back to mode.
func (b *bench) haSwitch(mode netcfg.RouteAddressMode, s haSetup) (haResult, error) {
	res := haResult{setup: s}
	rs, err := b.startReplicas(s)
	if err != nil {
		return res, err
	}
	defer stopReplicas(rs)
	if err := b.externalName(); err != nil {
		return res, err
	}
	held, err := b.holders(rs, "routeaddress")
	if err != nil {
		return res, err
	}
	res.holders = describeHolders(held)
	if s.stopOthers {
		for _, r := range rs[1:] {
			if err := syscall.Kill(r.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
				return res, err
			}
		}
		defer func() {
			for _, r := range rs[1:] {
				_ = syscall.Kill(r.cmd.Process.Pid, syscall.SIGCONT)
			}
		}()
	}
	cpu0, err := replicasCPU(b, rs)
	if err != nil {
		return res, err
	}
	leases0, err := b.leaseRequests()
	if err != nil {
		return res, err
	}
	start := time.Now()
	if err := b.setMode(mode); err != nil {
		return res, err
	}
	if err := b.waitShape(mode, gwIP); err != nil {
		return res, err
	}
	res.dur = time.Since(start)
	cpu1, err := replicasCPU(b, rs)
	if err != nil {
		return res, err
	}
	leases1, err := b.leaseRequests()
	if err != nil {
		return res, err
	}
	res.leases = (leases1 - leases0) / res.dur.Seconds()
	for i := range rs {
		res.cpu = append(res.cpu, cpu1[i]-cpu0[i])
	}
	res.api, res.etcd = cpu1[len(rs)]-cpu0[len(rs)], cpu1[len(rs)+1]-cpu0[len(rs)+1]
	log.Printf("ha %s (routeaddress leases: %s): → %s in %v (%.0f names/s); CPU %v, kube-apiserver %v, etcd %v; %.1f Lease requests/s",
		s.name, res.holders, mode, res.dur, float64(2*b.n)/res.dur.Seconds(), res.cpu, res.api, res.etcd, res.leases)
	return res, nil
}

// failover starts three replicas together, switches to ExternalName and
// back to mode, and kills the replica that holds the most routeaddress
// leases once a third of the names have the mode's shape.
func (b *bench) failover(mode netcfg.RouteAddressMode) (haFailover, error) {
	var f haFailover
	lease, err := time.ParseDuration(cluster.LeaderElection["lease-duration"])
	if err != nil {
		return f, err
	}
	f.lease = lease
	rs, err := b.startReplicas(haSetup{replicas: 3})
	if err != nil {
		return f, err
	}
	defer stopReplicas(rs)
	if err := b.externalName(); err != nil {
		return f, err
	}
	held, err := b.holders(rs, "routeaddress")
	if err != nil {
		return f, err
	}
	victim := rs[0]
	for _, r := range rs {
		if held[r.i] > held[victim.i] {
			victim = r
		}
	}
	if err := b.setMode(mode); err != nil {
		return f, err
	}
	deadline := time.Now().Add(b.patience())
	for {
		if f.killedAt, err = b.headless(); err != nil {
			return f, err
		}
		if 3*f.killedAt >= 2*b.n {
			break
		}
		if time.Now().After(deadline) {
			return f, fmt.Errorf("%d of %d names headless after %v", f.killedAt, 2*b.n, b.patience())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := victim.cmd.Process.Kill(); err != nil {
		return f, err
	}
	killed := time.Now()
	_ = victim.cmd.Wait()
	survivors := slices.DeleteFunc(slices.Clone(rs), func(r *replicaProc) bool { return r == victim })
	taken := make(chan time.Duration, 1)
	go func() {
		for time.Since(killed) < b.patience() {
			if h, err := b.holders(survivors, "routeaddress"); err == nil && sum(h) == haBuckets {
				taken <- time.Since(killed)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		taken <- 0
	}()
	if err := b.waitShape(mode, gwIP); err != nil {
		return f, err
	}
	f.took = time.Since(killed)
	f.taken = <-taken
	log.Printf("failover: replica %d (%d routeaddress leases) killed with %d of %d names headless; leases taken %v after, every name converged %v after (lease %v)",
		victim.i, held[victim.i], f.killedAt, 2*b.n, f.taken, f.took, lease)
	return f, nil
}

// externalName switches to ExternalName and waits until every name has
// that shape and the controllers are quiet.
func (b *bench) externalName() error {
	if err := b.setMode(netcfg.RouteAddressModeExternalName); err != nil {
		return err
	}
	if err := b.waitShape(netcfg.RouteAddressModeExternalName, gwIP); err != nil {
		return err
	}
	return b.quiet()
}

// startReplicas starts s's replicas with the bench's client limits and
// waits until every routeaddress lease is held by one of them.
func (b *bench) startReplicas(s haSetup) ([]*replicaProc, error) {
	var rs []*replicaProc
	start := func(i int) error {
		r := &replicaProc{i: i}
		if fi, err := os.Stat(r.log(b.c)); err == nil {
			r.from = fi.Size()
		}
		cmd, err := cluster.StartReplica(b.c, replicaBin, i, append(cluster.Limits(b.qps, b.burst), controllerEnv...)...)
		if err != nil {
			return err
		}
		r.cmd = cmd
		rs = append(rs, r)
		return nil
	}
	if err := start(0); err != nil {
		return nil, err
	}
	if s.first {
		// Every lease of every reconciler on the first.
		if err := b.waitHeld(rs, ""); err != nil {
			stopReplicas(rs)
			return nil, err
		}
	}
	for i := 1; i < s.replicas; i++ {
		if err := start(i); err != nil {
			stopReplicas(rs)
			return nil, err
		}
	}
	if err := b.waitHeld(rs, "routeaddress"); err != nil {
		stopReplicas(rs)
		return nil, err
	}
	// The other replicas' informers are up.
	time.Sleep(5 * time.Second)
	return rs, nil
}

func stopReplicas(rs []*replicaProc) {
	for _, r := range rs {
		_ = syscall.Kill(r.cmd.Process.Pid, syscall.SIGCONT)
		cluster.Stop(r.cmd)
	}
}

// waitHeld waits until every lease whose name contains what is held by one
// of rs.
func (b *bench) waitHeld(rs []*replicaProc, what string) error {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		h, err := b.holders(rs, what)
		if err == nil && sum(h) > 0 && sum(h) == b.leases(what) {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("the leases %q are not all held by the replicas after 2 minutes", what)
}

// leases counts the bucket leases whose name contains what that exist now.
func (b *bench) leases(what string) int {
	l, err := b.kube.CoordinationV1().Leases(cluster.SystemNamespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return -1
	}
	n := 0
	for _, lease := range l.Items {
		if strings.Contains(lease.Name, what) && strings.HasSuffix(lease.Name, haSuffix) {
			n++
		}
	}
	return n
}

// holders counts, per replica, the bucket leases whose name contains what
// that it holds (by the identities its log names).
func (b *bench) holders(rs []*replicaProc, what string) (map[int]int, error) {
	ids := map[string]int{}
	for _, r := range rs {
		data, err := os.ReadFile(r.log(b.c))
		if err != nil {
			return nil, err
		}
		for _, id := range cluster.LeaderIdentities(data[min(r.from, int64(len(data))):]) {
			ids[id] = r.i
		}
	}
	hs, err := cluster.LeaseHolders(context.Background(), b.kube, what)
	if err != nil {
		return nil, err
	}
	out := map[int]int{}
	for lease, id := range hs {
		if i, ok := ids[id]; ok && strings.HasSuffix(lease, haSuffix) {
			out[i]++
		}
	}
	return out, nil
}

func sum(m map[int]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// describeHolders is "0:4" or "0:2 1:1 2:1": replica and leases held.
func describeHolders(h map[int]int) string {
	var parts []string
	for _, i := range slices.Sorted(maps.Keys(h)) {
		parts = append(parts, fmt.Sprintf("%d:%d", i, h[i]))
	}
	return strings.Join(parts, " ")
}

// replicasCPU is each replica's CPU time, then kube-apiserver's and etcd's.
func replicasCPU(b *bench, rs []*replicaProc) ([]time.Duration, error) {
	var out []time.Duration
	for _, pid := range append(pids(rs), b.c.Pid("kube-apiserver"), b.c.Pid("etcd")) {
		d, err := procCPU(pid)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func pids(rs []*replicaProc) []int {
	out := make([]int, len(rs))
	for i, r := range rs {
		out[i] = r.cmd.Process.Pid
	}
	return out
}

// headless counts the Routes' names whose Service is headless.
func (b *bench) headless() (int, error) {
	n := 0
	for _, ns := range b.nss {
		l, err := b.kube.CoreV1().Services(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return 0, err
		}
		for _, s := range l.Items {
			if s.Spec.ClusterIP == corev1.ClusterIPNone {
				n++
			}
		}
	}
	return n, nil
}

// leaseRequests is the number of requests to Leases kube-apiserver has
// served (its apiserver_request_total).
func (b *bench) leaseRequests() (float64, error) {
	body, err := b.kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="leases"`) {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v); err == nil {
			total += v
		}
	}
	return total, nil
}

// printHATable prints the ha row's table: each setup's switch and the
// failover, per managed column.
func printHATable(modes []netcfg.RouteAddressMode, rs map[netcfg.RouteAddressMode]*result, n int) {
	fmt.Printf("\nA switch from ExternalName at N=%d Routes with a tag (%d names) under leader election with %d buckets (lease %s, renew %s, retry %s); "+
		"each replica's client limits QPS %d, burst %d; CPU from /proc over the switch\n\n",
		n, 2*n, haBuckets, cluster.LeaderElection["lease-duration"], cluster.LeaderElection["renew-deadline"], cluster.LeaderElection["retry-period"], limits.qps, limits.burst)
	fmt.Println("| column | replicas | routeaddress leases (replica:leases) | switch | names/s | ratio to 1 replica | CPU of each replica | kube-apiserver CPU | etcd CPU | Lease requests/s |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, m := range modes {
		r := rs[m]
		if r == nil || len(r.ha) == 0 {
			continue
		}
		one := r.ha[0].dur
		for _, h := range r.ha {
			var cpu []string
			for _, c := range h.cpu {
				cpu = append(cpu, fmt.Sprintf("%.1f s", c.Seconds()))
			}
			fmt.Printf("| %s | %s | %s | %.1f s | %.0f | %.2f | %s | %.1f s | %.1f s | %.1f |\n", m, h.setup.name, h.holders, h.dur.Seconds(),
				float64(2*n)/h.dur.Seconds(), one.Seconds()/h.dur.Seconds(), strings.Join(cpu, ", "), h.api.Seconds(), h.etcd.Seconds(), h.leases)
		}
	}
	fmt.Println("\n| column | killed with names converged | routeaddress leases held again after the kill | every name converged after the kill | lease duration |")
	fmt.Println("|---|---|---|---|---|")
	for _, m := range modes {
		r := rs[m]
		if r == nil || len(r.ha) == 0 {
			continue
		}
		f := r.failover
		fmt.Printf("| %s | %d of %d | %.1f s | %.1f s | %.0f s |\n", m, f.killedAt, 2*n, f.taken.Seconds(), f.took.Seconds(), f.lease.Seconds())
	}
}
