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

package plan_test

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
	. "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// bigLB is a load balancer of IP entries: v4 IPv4 and v6 IPv6 addresses out
// of a pool of 600 each, chosen by the set bits of pick.
func bigLB(pick4, pick6 []bool) lb {
	var entries []netv1alpha1.LoadBalancerIngressStatus
	for i, on := range pick4 {
		if on {
			entries = append(entries, IP(fmt.Sprintf("10.2.%d.%d", i/200, i%200+1)))
		}
	}
	for i, on := range pick6 {
		if on {
			entries = append(entries, IP(fmt.Sprintf("fd00::2:%x", i+1)))
		}
	}
	return lb{fmt.Sprintf("%d IP entries", len(entries)), entries}
}

// TestLargeLoadBalancer walks a load balancer of up to 600 addresses per
// family through random growth and shrinking, one address or many at a
// time, in every mode. After each step applied to the simulated
// apiserver: every address is in exactly one of our slices of its family,
// no slice holds more than plan.MaxEndpointsPerSlice, a family of n
// addresses has ceil(n/100) slices, an Endpoints holds the first 1000
// addresses and is annotated over capacity when there are more, planning
// again gives nothing, the names answered throughout, and a step that adds
// or removes one address writes at most one slice per name, or three when
// the family needs one slice fewer.
func TestLargeLoadBalancer(t *testing.T) {
	modes := []netcfg.RouteAddressMode{netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpointsAndSlices}
	for seed := uint64(1); seed <= 9; seed++ {
		mode := modes[seed%3]
		t.Run(fmt.Sprintf("seed %d %s", seed, mode), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			pick4, pick6 := make([]bool, 600), make([]bool, 600)
			s := newAPIServer(plan.Actual{})
			for step := range 30 {
				one := rng.IntN(2) == 0
				if one {
					i := rng.IntN(600)
					pick4[i] = !pick4[i]
				} else {
					p := rng.Float64()
					for i := range pick4 {
						pick4[i] = rng.Float64() < p
					}
					q := rng.Float64()
					for i := range pick6 {
						pick6[i] = rng.Float64() < q
					}
				}
				if !slices.Contains(pick4, true) && !slices.Contains(pick6, true) {
					pick4[0] = true
				}
				l := bigLB(pick4, pick6)
				e := newEnv(l, mode, netcfg.RouteAddressFallbackEnabled)
				before := s.actual()
				beforeSlices := countSlices(s)
				in, err := e.input(before)
				if err != nil {
					t.Fatal(err)
				}
				p := plan.Make(in)
				if err := s.apply(p.Ops); err != nil {
					t.Fatalf("step %d (%s): apiserver refused: %v\n%s", step, l.name, err, describe(p))
				}
				checkAnswersThroughout(t, before, p)
				in, err = e.input(s.actual())
				if err != nil {
					t.Fatal(err)
				}
				if again := plan.Make(in); len(again.Ops) != 0 {
					t.Fatalf("step %d (%s): second plan not empty:\n%s", step, l.name, describe(again))
				}
				checkSplit(t, s, in, l, mode)
				if one && step > 0 {
					writes := 0
					for _, op := range p.Ops {
						if op.Kind == plan.KindEndpointSlice {
							writes++
						}
					}
					// Per name: one slice changes, or one is folded into
					// the others (a delete and at most two updates).
					limit := 1
					if countSlices(s) < beforeSlices {
						limit = 3
					}
					if writes > limit*len(in.Targets) {
						t.Errorf("step %d (%s): one address changed and %d slice writes were made:\n%s", step, l.name, writes, describe(p))
					}
				}
				if t.Failed() {
					t.Fatalf("step %d (%s) failed:\n%s", step, l.name, describe(p))
				}
			}
		})
	}
}

// countSlices counts our slices in s.
func countSlices(s *apiserver) int {
	n := 0
	for _, sl := range s.slices {
		if sl.Labels[discoveryv1.LabelManagedBy] == names.ManagedBy {
			n++
		}
	}
	return n
}

// checkSplit checks every name's slices against the load balancer l.
func checkSplit(t *testing.T, s *apiserver, in plan.Input, l lb, mode netcfg.RouteAddressMode) {
	t.Helper()
	for _, tg := range in.Targets {
		ep := s.endpoints[tg.Name]
		if !mode.WritesEndpoints() {
			continue
		}
		n := len(ep.Subsets[0].Addresses)
		if want := min(len(l.entries), 1000); n != want {
			t.Errorf("Endpoints %s hold %d addresses, want %d", tg.Name, n, want)
		}
		if got, want := ep.Annotations[corev1.EndpointsOverCapacity], map[bool]string{true: "truncated"}[len(l.entries) > 1000]; got != want {
			t.Errorf("Endpoints %s are annotated over-capacity %q, want %q", tg.Name, got, want)
		}
	}
	if !mode.WritesEndpointSlices() {
		return
	}
	want := map[discoveryv1.AddressType]map[string]bool{discoveryv1.AddressTypeIPv4: {}, discoveryv1.AddressTypeIPv6: {}}
	for _, e := range l.entries {
		a := netip.MustParseAddr(e.IP)
		fam := discoveryv1.AddressTypeIPv4
		if a.Is6() {
			fam = discoveryv1.AddressTypeIPv6
		}
		want[fam][a.String()] = true
	}
	for _, tg := range in.Targets {
		for fam, addrs := range want {
			seen := map[string]int{}
			count := 0
			for _, sl := range s.slices {
				if sl.Labels[discoveryv1.LabelServiceName] != tg.Name || sl.Labels[discoveryv1.LabelManagedBy] != names.ManagedBy || sl.AddressType != fam {
					continue
				}
				count++
				if len(sl.Endpoints) > plan.MaxEndpointsPerSlice || len(sl.Endpoints) == 0 {
					t.Errorf("%s holds %d endpoints, want 1 to %d", sl.Name, len(sl.Endpoints), plan.MaxEndpointsPerSlice)
				}
				for _, ep := range sl.Endpoints {
					for _, a := range ep.Addresses {
						seen[a]++
					}
				}
			}
			for a := range addrs {
				if seen[a] != 1 {
					t.Errorf("%s %s: address %s is in %d slices, want 1", tg.Name, fam, a, seen[a])
				}
			}
			for a := range seen {
				if !addrs[a] {
					t.Errorf("%s %s: address %s is not the load balancer's", tg.Name, fam, a)
				}
			}
			if need := (len(addrs) + plan.MaxEndpointsPerSlice - 1) / plan.MaxEndpointsPerSlice; count != need {
				t.Errorf("%s %s: %d slices for %d addresses, want %d", tg.Name, fam, count, len(addrs), need)
			}
		}
	}
}
