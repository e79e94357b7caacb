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

package routeaddress

import (
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"

	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

func TestPending(t *testing.T) {
	h, tg := rt.RouteName, rt.TagService
	headless := &resources.Addressing{Name: h, Shape: resources.ShapeHeadless}
	handedBack := &resources.Addressing{Name: h, Shape: resources.ShapeRouteReconciler}
	ours := rt.Slice(h, discoveryv1.AddressTypeIPv4, "10.0.0.7")
	mirrored := rt.Slice(h, discoveryv1.AddressTypeIPv4, "10.0.0.7")
	mirrored.Labels[discoveryv1.LabelManagedBy] = names.MirroredBy
	tagSlice := rt.Slice(tg, discoveryv1.AddressTypeIPv4, "10.0.0.7")
	deleteOurs := plan.Op{Verb: plan.Delete, Kind: plan.KindEndpointSlice, Object: ours}

	for _, tc := range []struct {
		name string
		in   plan.Input
		p    plan.Plan
		t    *resources.Addressing
		want string
	}{{
		name: "has the mode's shape",
		t:    headless,
	}, {
		name: "a Service of its name the Route does not control",
		p:    plan.Plan{Blocked: []plan.Blocked{{Kind: plan.KindService, Name: h}}},
		t:    headless,
		want: PendingNotOwned,
	}, {
		name: "an EndpointSlice the Route does not control that serves it",
		in:   plan.Input{Actual: plan.Actual{Slices: []*discoveryv1.EndpointSlice{ours}}},
		p:    plan.Plan{Blocked: []plan.Blocked{{Kind: plan.KindEndpointSlice, Name: h + "-ipv4"}}},
		t:    headless,
		want: PendingNotOwned,
	}, {
		name: "an EndpointSlice the Route does not control that serves another name",
		in:   plan.Input{Actual: plan.Actual{Slices: []*discoveryv1.EndpointSlice{tagSlice}}},
		p:    plan.Plan{Blocked: []plan.Blocked{{Kind: plan.KindEndpointSlice, Name: tg + "-ipv4"}}},
		t:    headless,
	}, {
		name: "a blocked object of another name",
		p:    plan.Plan{Blocked: []plan.Blocked{{Kind: plan.KindService, Name: tg}}},
		t:    headless,
	}, {
		name: "its Endpoints wait for mirroring",
		p:    plan.Plan{Waiting: []string{h}},
		t:    headless,
		want: PendingMirroring,
	}, {
		name: "another name waits for mirroring",
		p:    plan.Plan{Waiting: []string{tg}},
		t:    headless,
	}, {
		name: "no load balancer",
		p:    plan.Plan{NoLoadBalancer: []string{h}},
		t:    &resources.Addressing{Name: h, Shape: resources.ShapeKept},
		want: PendingNoLoadBalancer,
	}, {
		name: "another name has no load balancer",
		p:    plan.Plan{NoLoadBalancer: []string{tg}},
		t:    headless,
	}, {
		name: "falls back to ExternalName",
		t:    &resources.Addressing{Name: h, Shape: resources.ShapeExternalName},
		want: PendingFallback,
	}, {
		name: "unresolvable, no fallback",
		t:    &resources.Addressing{Name: h, Shape: resources.ShapeHeadlessEmpty},
		want: PendingUnresolvable,
	}, {
		name: "ExternalName mode: our slices wait for the route reconciler",
		in:   plan.Input{ExternalNameMode: true, Actual: plan.Actual{Slices: []*discoveryv1.EndpointSlice{ours}}},
		t:    handedBack,
		want: PendingRouteReconciler,
	}, {
		name: "ExternalName mode: our slices are being deleted",
		in:   plan.Input{ExternalNameMode: true, Actual: plan.Actual{Slices: []*discoveryv1.EndpointSlice{ours}}},
		p:    plan.Plan{Ops: []plan.Op{deleteOurs}},
		t:    handedBack,
	}, {
		name: "ExternalName mode: a mirrored slice is not ours",
		in:   plan.Input{ExternalNameMode: true, Actual: plan.Actual{Slices: []*discoveryv1.EndpointSlice{mirrored}}},
		t:    handedBack,
	}, {
		name: "ExternalName mode: our slice of another name",
		in:   plan.Input{ExternalNameMode: true, Actual: plan.Actual{Slices: []*discoveryv1.EndpointSlice{tagSlice}}},
		t:    handedBack,
	}, {
		name: "a managed mode keeps no slice waiting for the route reconciler",
		in:   plan.Input{Actual: plan.Actual{Slices: []*discoveryv1.EndpointSlice{ours}}},
		t:    headless,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Pending(tc.in, tc.p, tc.t); got != tc.want {
				t.Errorf("Pending = %q, want %q", got, tc.want)
			}
		})
	}
}
