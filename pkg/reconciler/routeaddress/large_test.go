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
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	clientgotesting "k8s.io/client-go/testing"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	. "knative.dev/pkg/reconciler/testing"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// manyIPs returns n IPv4 addresses, 10.3.0.1 up, in order.
func manyIPs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("10.3.%d.%d", i/250, i%250+1)
	}
	return out
}

// lbOf is a load balancer of one IP entry per address.
func lbOf(ips []string) []netv1alpha1.LoadBalancerIngressStatus {
	out := make([]netv1alpha1.LoadBalancerIngressStatus, len(ips))
	for i, ip := range ips {
		out[i] = rt.IP(ip)
	}
	return out
}

// sliceNamed is the Route's IPv4 slice holding ips, under name.
func sliceNamed(name string, ips ...string) *discoveryv1.EndpointSlice {
	s := rt.Slice(rt.RouteName, discoveryv1.AddressTypeIPv4, ips...)
	s.Name = name
	return s
}

func join(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func withOverCapacity(e *corev1.Endpoints) {
	e.Annotations[corev1.EndpointsOverCapacity] = "truncated"
}

// TestReconcileLargeLoadBalancer: a load balancer of more addresses than one
// EndpointSlice should hold (a host-network ingress reports one per node).
func TestReconcileLargeLoadBalancer(t *testing.T) {
	route := rt.Route(false)
	es, eps := netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpointsAndSlices
	on := netcfg.RouteAddressFallbackEnabled
	h := rt.RouteName
	ips := manyIPs(1200)
	tooLarge := apierrs.NewRequestEntityTooLargeError("limit is 3145728")
	slice := func(name string, from, to int) *discoveryv1.EndpointSlice { return sliceNamed(name, ips[from:to]...) }

	table := TableTest{{
		Name:    "create: EndpointSlices, 250 addresses: three slices of at most 100",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbOf(ips[:250])),
		WantCreates: []runtime.Object{
			rt.HeadlessService(h), slice(h+"-ipv4", 0, 100), slice(h+"-ipv4-1", 100, 200), slice(h+"-ipv4-2", 200, 250),
		},
		WantEvents: []string{
			done("Created", obj(plan.KindService, h), obj(plan.KindEndpointSlice, h+"-ipv4"),
				obj(plan.KindEndpointSlice, h+"-ipv4-1"), obj(plan.KindEndpointSlice, h+"-ipv4-2")),
		},
	}, {
		Name: "update: one address more: the one slice with room is written",
		Key:  key,
		Ctx:  withMode(es, on),
		Objects: base(route, lbOf(ips[:251]), live(
			rt.HeadlessService(h), slice(h+"-ipv4", 0, 100), slice(h+"-ipv4-1", 100, 200), slice(h+"-ipv4-2", 200, 250))...),
		WantUpdates: []clientgotesting.UpdateActionImpl{
			updateOf(withUID(liveOne(slice(h+"-ipv4-2", 200, 251)))),
		},
	}, {
		Name: "update: an address fewer: only its slice is written",
		Key:  key,
		Ctx:  withMode(es, on),
		Objects: base(route, lbOf(join(ips[:150], ips[151:250])), live(
			rt.HeadlessService(h), slice(h+"-ipv4", 0, 100), slice(h+"-ipv4-1", 100, 200), slice(h+"-ipv4-2", 200, 250))...),
		WantUpdates: []clientgotesting.UpdateActionImpl{
			updateOf(withUID(liveOne(sliceNamed(h+"-ipv4-1", join(ips[100:150], ips[151:200])...)))),
		},
	}, {
		Name: "update: 100 addresses fewer: the emptiest slice is folded into another, then deleted",
		Key:  key,
		Ctx:  withMode(es, on),
		Objects: base(route, lbOf(join(ips[:60], ips[100:140], ips[200:250])), live(
			rt.HeadlessService(h), slice(h+"-ipv4", 0, 100), slice(h+"-ipv4-1", 100, 200), slice(h+"-ipv4-2", 200, 250))...),
		WantUpdates: []clientgotesting.UpdateActionImpl{
			updateOf(withUID(liveOne(sliceNamed(h+"-ipv4", join(ips[:60], ips[100:140])...)))),
		},
		WantDeletes: []clientgotesting.DeleteActionImpl{deleteOf(slicesResource, h+"-ipv4-1")},
		WantEvents:  []string{deleted(plan.KindEndpointSlice, h+"-ipv4-1")},
	}, {
		Name:    "create: EndpointsAndSlices, 1200 addresses: the Endpoints hold the first 1000, annotated; the slices all",
		Key:     key,
		Ctx:     withMode(eps, on),
		Objects: base(route, lbOf(ips)),
		WantCreates: []runtime.Object{
			rt.HeadlessService(h),
			slice(h+"-ipv4", 0, 100), slice(h+"-ipv4-1", 100, 200), slice(h+"-ipv4-2", 200, 300), slice(h+"-ipv4-3", 300, 400),
			slice(h+"-ipv4-4", 400, 500), slice(h+"-ipv4-5", 500, 600), slice(h+"-ipv4-6", 600, 700), slice(h+"-ipv4-7", 700, 800),
			slice(h+"-ipv4-8", 800, 900), slice(h+"-ipv4-9", 900, 1000), slice(h+"-ipv4-10", 1000, 1100), slice(h+"-ipv4-11", 1100, 1200),
			rt.Endpoints(h, ips[:1000], rt.WithSkipMirror, withOverCapacity),
		},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "EndpointsOverCapacity",
				`Endpoints "hello" hold the first 1000 of the load balancer's 1200 addresses, the most an Endpoints holds `+
					`(annotated endpoints.kubernetes.io/over-capacity=truncated): the EndpointSlices hold them all`),
			done("Created", obj(plan.KindService, h),
				obj(plan.KindEndpointSlice, h+"-ipv4"), obj(plan.KindEndpointSlice, h+"-ipv4-1"), obj(plan.KindEndpointSlice, h+"-ipv4-2"),
				obj(plan.KindEndpointSlice, h+"-ipv4-3"), obj(plan.KindEndpointSlice, h+"-ipv4-4"), obj(plan.KindEndpointSlice, h+"-ipv4-5"),
				obj(plan.KindEndpointSlice, h+"-ipv4-6"), obj(plan.KindEndpointSlice, h+"-ipv4-7"), obj(plan.KindEndpointSlice, h+"-ipv4-8"),
				obj(plan.KindEndpointSlice, h+"-ipv4-9"), obj(plan.KindEndpointSlice, h+"-ipv4-10"), obj(plan.KindEndpointSlice, h+"-ipv4-11"),
				obj(plan.KindEndpoints, h)),
		},
	}, {
		Name: "Endpoints, 1200 addresses, steady: the Warning says the name answers with the mirrored 1000",
		Key:  key,
		Ctx:  withMode(netcfg.RouteAddressModeEndpoints, on),
		Objects: base(route, lbOf(ips), live(
			rt.HeadlessService(h), rt.Endpoints(h, ips[:1000], withOverCapacity), mirroredSlice(h, ips[:1000]...))...),
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "EndpointsOverCapacity",
				`Endpoints "hello" hold the first 1000 of the load balancer's 1200 addresses, the most an Endpoints holds `+
					`(annotated endpoints.kubernetes.io/over-capacity=truncated): kube-controller-manager mirrors only those into EndpointSlices, so the name answers with them`),
		},
	}, {
		Name: "Endpoints, 900 addresses again: the annotation comes off",
		Key:  key,
		Ctx:  withMode(netcfg.RouteAddressModeEndpoints, on),
		Objects: base(route, lbOf(ips[:900]), live(
			rt.HeadlessService(h), rt.Endpoints(h, ips[:1000], withOverCapacity), mirroredSlice(h, ips[:1000]...))...),
		WantUpdates: []clientgotesting.UpdateActionImpl{
			updateOf(withUID(rt.Endpoints(h, ips[:900]))),
		},
	}, {
		Name:         "an Endpoints refused as too large: the Warning says how many addresses it held",
		Key:          key,
		Ctx:          withMode(netcfg.RouteAddressModeEndpoints, on),
		Objects:      base(route, lbOf(ips[:900]), live(rt.HeadlessService(h))...),
		WithReactors: []clientgotesting.ReactionFunc{refuse("create", "endpoints", tooLarge)},
		WantErr:      true,
		WantCreates:  []runtime.Object{rt.Endpoints(h, ips[:900])},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "CreationFailed", "Failed to create Endpoints %q holding 900 addresses: %v", h, tooLarge),
			Eventf(corev1.EventTypeWarning, "InternalError", "failed to create Endpoints %q: %v", h, tooLarge),
		},
	}}
	table.Test(t, recording(factory()))
}
