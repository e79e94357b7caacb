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
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

func printTable(modes []netcfg.RouteAddressMode, rs map[netcfg.RouteAddressMode]*result, n, unrelated, namespaces int) {
	col := func(f func(*result, netcfg.RouteAddressMode) string) string {
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
		if floor == 0 {
			return "n/a" // its row was not measured
		}
		return fmt.Sprintf("%.1f", floor.Seconds()*1000/float64(max(k, 1)))
	}
	fmt.Printf("\nN=%d Routes, each with one tag (%d Services), in %d namespace(s); KIngress DomainInternal → one gateway Service.\n", n, 2*n, namespaces)
	fmt.Printf("Controller client limits: QPS %d, burst %d (sharedmain's default for serving's binary with route-address: %d controllers × 5 / × 10 = %d / %d).\n",
		limits.qps, limits.burst, limits.ctors, 5*limits.ctors, 10*limits.ctors)
	if len(controllerEnv) > 0 {
		fmt.Printf("Controller environment: %s.\n", strings.Join(controllerEnv, ", "))
	}
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
	if rows[rowCreate] {
		fmt.Printf("| time until every Route's Services have their final shape after creation | %s |\n", col(func(r *result, _ netcfg.RouteAddressMode) string { return ratio(r.create, r.createAll, r.floorCreate) }))
	}
	if rows[rowCreate] {
		fmt.Printf("| API writes to Services/Endpoints/EndpointSlices during that (audit log) | %s |\n", col(func(r *result, _ netcfg.RouteAddressMode) string { return fmt.Sprint(r.createW) }))
	}
	if rows[rowSteady] {
		fmt.Printf("| API writes per Route during one forced global resync in steady state | %s |\n", col(func(r *result, _ netcfg.RouteAddressMode) string {
			return fmt.Sprintf("%.2f", float64(r.resyncW)/float64(n))
		}))
	}
	if rows[rowResync] {
		fmt.Printf("| a new Route: time until its names have their final shape, on an idle controller → right after a global resync began (a config-network change; the resync's writes meanwhile) | %s |\n",
			col(func(r *result, _ netcfg.RouteAddressMode) string { return lateCell(r.rows) }))
	}
	if rows[rowResync] {
		fmt.Printf("| the control: a new Route on an idle controller while a busy loop runs on every core (no work queued ahead of it) | %s |\n",
			col(func(r *result, _ netcfg.RouteAddressMode) string { return busyCell(r.rows) }))
	}
	if rows[rowResync] {
		fmt.Printf("| one global resync (a config-network change): from the change until the controller's CPU has been idle 2 s and no write seen for 3 s (the bench's 1 s sleep and those waits included) | %s |\n",
			col(func(r *result, _ netcfg.RouteAddressMode) string { return durCell(r.rows) }))
	}
	if rows[rowResync] {
		fmt.Printf("| CPU seconds over that whole resync (idle rate subtracted): controller / kube-apiserver / etcd (the resync's writes) | %s |\n",
			col(func(r *result, _ netcfg.RouteAddressMode) string { return cpuCell(r.rows) }))
	}
	if rows[rowResync] {
		fmt.Printf("| allocated by the controller over that resync, per Route; its garbage collections | %s |\n",
			col(func(r *result, _ netcfg.RouteAddressMode) string { return allocCell(r.rows, n) }))
	}
	if rows[rowResync] {
		fmt.Printf("| a change of a config-network key nothing parses (`bench-unread`): duration; CPU seconds controller / kube-apiserver / etcd (writes) | %s |\n",
			col(func(r *result, _ netcfg.RouteAddressMode) string {
				c := r.unreadCPU
				return fmt.Sprintf("%.1f s; %.2f / %.2f / %.2f (%d writes)", r.unreadTime.Seconds(), c.ctrl.Seconds(), c.api.Seconds(), c.etcd.Seconds(), r.unreadW)
			}))
	}
	if rows[rowResync] {
		for i, a := range alts {
			alt := func(f func(altResult) string) func(*result, netcfg.RouteAddressMode) string {
				return func(r *result, _ netcfg.RouteAddressMode) string {
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
	}
	if rows[rowSwitch] {
		fmt.Printf("| time to converge after switching the mode from `ExternalName` (and back) | %s |\n", col(func(r *result, m netcfg.RouteAddressMode) string {
			if !m.Managed() {
				return "n/a"
			}
			return ratio(r.fromExtName, r.fromW, r.floorFrom) + "; back: " + ratio(r.toExtName, r.toW, r.floorTo)
		}))
	}
	if rows[rowFollow] {
		fmt.Printf("| time until every Route follows a new ClusterIP of the gateway Service | %s |\n", col(func(r *result, m netcfg.RouteAddressMode) string {
			if !m.Managed() {
				return "n/a"
			}
			return ratio(r.follow, r.followW, r.floorFollow)
		}))
	}
	if rows[rowFollow] {
		fmt.Printf("| every Route follows a new gateway ClusterIP: idle → made right after a global resync began (writes meanwhile) | %s |\n", col(func(r *result, m netcfg.RouteAddressMode) string {
			if !m.Managed() {
				return "n/a (a CNAME: nothing to write)"
			}
			return fmt.Sprintf("%.1f s → %.1f s (%.2f×, %d writes)", r.follow.Seconds(), r.followResync.Seconds(), r.followResync.Seconds()/r.follow.Seconds(), r.followResyncW)
		}))
	}
	if rows[rowMemory] {
		fmt.Printf("| controller peak RSS (VmHWM): no Route → %d Routes, KiB per Route | %s |\n", n,
			col(func(r *result, _ netcfg.RouteAddressMode) string {
				if r.rssEmpty == 0 {
					// Routes reused from an earlier run: no RSS without them.
					return fmt.Sprintf("n/a → %d MiB (Routes reused: run with a fresh -dir)", r.rssBase>>10)
				}
				return fmt.Sprintf("%d → %d MiB, %.1f KiB", r.rssEmpty>>10, r.rssBase>>10, float64(r.rssBase-r.rssEmpty)/float64(n))
			}))
	}
	if rows[rowMemory] {
		for i, a := range alts {
			fmt.Printf("| with `%s`: controller peak RSS (VmHWM) over a restart and its resync, on the same Routes | %s |\n", a.name,
				col(func(r *result, _ netcfg.RouteAddressMode) string {
					if i >= len(r.altRSS) || r.altRSS[i] == 0 {
						return "n/a"
					}
					return fmt.Sprintf("%d MiB (the controller's: %d MiB)", r.altRSS[i]>>10, r.rssBase>>10)
				}))
		}
	}
	if rows[rowMemory] {
		fmt.Printf("| controller peak RSS (VmHWM) after a resync, without → with %d unrelated EndpointSlices | %s |\n", unrelated,
			col(func(r *result, _ netcfg.RouteAddressMode) string {
				return fmt.Sprintf("%d → %d MiB", r.rssBase>>10, r.rssNoise>>10)
			}))
	}
	if rows[rowCreate] || rows[rowSwitch] || rows[rowFollow] {
		fmt.Printf("| floor: ms per write from a tight client loop (the controller's limits), measured after creation / switch / back / follow | %s |\n",
			col(func(r *result, m netcfg.RouteAddressMode) string {
				if !m.Managed() {
					return perWrite(r.floorCreate, r.createAll)
				}
				return perWrite(r.floorCreate, r.createAll) + " / " + perWrite(r.floorFrom, r.fromW) + " / " +
					perWrite(r.floorTo, r.toW) + " / " + perWrite(r.floorFollow, r.followW)
			}))
	}
	if rows[rowCreate] {
		fmt.Printf("| floor without a client limit: ms per write from 8 parallel unthrottled clients (2000 creates) | %s |\n",
			col(func(r *result, _ netcfg.RouteAddressMode) string {
				return fmt.Sprintf("%.2f", float64(r.floorFree.Microseconds())/1000)
			}))
	}
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
