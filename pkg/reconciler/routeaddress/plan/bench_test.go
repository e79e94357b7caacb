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
	"testing"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
)

// benchmarkRoute measures what the reconciler does per Route and
// reconcile: build the desired objects of both names (the Route's and its
// tag's, from the route reconciler's placeholders: nothing is cached) and plan against
// the actual state, converged (steady) or empty.
func benchmarkRoute(b *testing.B, mode netcfg.RouteAddressMode, l lb, steady bool) {
	e := newEnv(l, mode, netcfg.RouteAddressFallbackEnabled)
	actual := plan.Actual{}
	if steady {
		s := newAPIServer(plan.Actual{})
		in, err := e.input(actual)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.apply(plan.Make(in).Ops); err != nil {
			b.Fatal(err)
		}
		actual = s.actual()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		in, err := e.input(actual)
		if err != nil {
			b.Fatal(err)
		}
		p := plan.Make(in)
		if steady && len(p.Ops) != 0 {
			b.Fatal("steady state planned operations")
		}
	}
}

// BenchmarkRouteSteady is a reconcile of an unchanged, converged Route
// (a resync): the plan is empty.
func BenchmarkRouteSteady(b *testing.B) {
	for _, mode := range netcfg.RouteAddressModes {
		b.Run(string(mode)+"/DomainInternal", func(b *testing.B) { benchmarkRoute(b, mode, lbInternal, true) })
	}
	b.Run("EndpointsAndSlices/IPv4+IPv6", func(b *testing.B) { benchmarkRoute(b, netcfg.RouteAddressModeEndpointsAndSlices, lbDualStack, true) })
}

// BenchmarkRouteCreate is the first reconcile of a new Route: nothing
// exists.
func BenchmarkRouteCreate(b *testing.B) {
	for _, mode := range netcfg.RouteAddressModes[1:] {
		b.Run(string(mode)+"/DomainInternal", func(b *testing.B) { benchmarkRoute(b, mode, lbInternal, false) })
	}
}

// BenchmarkPlanOnly is plan.Make alone against converged objects, the
// desired objects built once: what the planner costs of
// BenchmarkRouteSteady.
func BenchmarkPlanOnly(b *testing.B) {
	for _, mode := range netcfg.RouteAddressModes[1:] {
		b.Run(string(mode)+"/DomainInternal", func(b *testing.B) {
			e := newEnv(lbInternal, mode, netcfg.RouteAddressFallbackEnabled)
			s := newAPIServer(plan.Actual{})
			in, err := e.input(plan.Actual{})
			if err != nil {
				b.Fatal(err)
			}
			if err := s.apply(plan.Make(in).Ops); err != nil {
				b.Fatal(err)
			}
			if in, err = e.input(s.actual()); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if p := plan.Make(in); len(p.Ops) != 0 {
					b.Fatal("steady state planned operations")
				}
			}
		})
	}
}
