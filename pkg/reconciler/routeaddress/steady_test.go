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

	corev1 "k8s.io/api/core/v1"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	. "knative.dev/pkg/reconciler/testing"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// TestReconcileSteadyState: every mode and load balancer shape, converged
// and server-defaulted, sends nothing.
func TestReconcileSteadyState(t *testing.T) {
	route := rt.Route(true)
	es, ep, eps, en := netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressModeEndpointsAndSlices, netcfg.RouteAddressModeExternalName
	on := netcfg.RouteAddressFallbackEnabled
	d := func(lb []netv1alpha1.LoadBalancerIngressStatus, m netcfg.RouteAddressMode, fb netcfg.RouteAddressFallback) map[string]*resources.Addressing {
		return desired(route, lb, m, fb, gateway())
	}
	h, tg := rt.RouteName, rt.TagService
	fallbackWarning := func(svc string) string {
		return Eventf(corev1.EventTypeWarning, "ExternalNameFallback",
			"Service %q falls back to ExternalName %q because its load balancer cannot be resolved to IP addresses (route-address-externalname-fallback=enabled): ExternalDomain: load balancer domain \"lb.example.com\" is outside the cluster",
			svc, "lb.example.com")
	}

	var table TableTest
	// In a managed mode an external Domain repeats its fallback Warning, once
	// per name.
	table = append(table, TableTest{{
		Name:    "steady state, externalname, IP",
		Key:     key,
		Ctx:     withMode(en, on),
		Objects: base(route, lbIP, live(routeReconcilerObjects(route, lbIP)...)...),
	}, {
		Name:    "steady state, externalname, IPv4+IPv6",
		Key:     key,
		Ctx:     withMode(en, on),
		Objects: base(route, lbDual, live(routeReconcilerObjects(route, lbDual)...)...),
	}, {
		Name:    "steady state, externalname, DomainInternal",
		Key:     key,
		Ctx:     withMode(en, on),
		Objects: base(route, lbInternal, live(routeReconcilerObjects(route, lbInternal)...)...),
	}, {
		Name:    "steady state, externalname, Domain",
		Key:     key,
		Ctx:     withMode(en, on),
		Objects: base(route, lbDomain, live(routeReconcilerObjects(route, lbDomain)...)...),
	}, {
		Name:    "steady state, externalname, MeshOnly",
		Key:     key,
		Ctx:     withMode(en, on),
		Objects: base(route, lbMesh, live(routeReconcilerObjects(route, lbMesh)...)...),
	}, {
		Name:    "steady state, externalname, none",
		Key:     key,
		Ctx:     withMode(en, on),
		Objects: base(route, lbNone, live(routeReconcilerObjects(route, lbNone)...)...),
	}, {
		Name:    "steady state, endpoints, IP",
		Key:     key,
		Ctx:     withMode(ep, on),
		Objects: base(route, lbIP, live(objects(d(lbIP, ep, on))...)...),
	}, {
		Name:    "steady state, endpoints, IPv4+IPv6",
		Key:     key,
		Ctx:     withMode(ep, on),
		Objects: base(route, lbDual, live(objects(d(lbDual, ep, on))...)...),
	}, {
		Name:    "steady state, endpoints, DomainInternal",
		Key:     key,
		Ctx:     withMode(ep, on),
		Objects: base(route, lbInternal, live(objects(d(lbInternal, ep, on))...)...),
	}, {
		Name:       "steady state, endpoints, Domain",
		Key:        key,
		Ctx:        withMode(ep, on),
		Objects:    base(markedRoute(route, fallbackWarning(h)), lbDomain, live(objects(d(lbDomain, ep, on))...)...),
		WantEvents: []string{fallbackWarning(h), fallbackWarning(tg)},
	}, {
		Name:    "steady state, endpoints, MeshOnly",
		Key:     key,
		Ctx:     withMode(ep, on),
		Objects: base(route, lbMesh, live(objects(d(lbMesh, ep, on))...)...),
	}, {
		Name:    "steady state, endpoints, none",
		Key:     key,
		Ctx:     withMode(ep, on),
		Objects: base(route, lbNone, live(objects(d(lbNone, ep, on))...)...),
	}, {
		Name:    "steady state, endpointslices, IP",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbIP, live(objects(d(lbIP, es, on))...)...),
	}, {
		Name:    "steady state, endpointslices, IPv4+IPv6",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbDual, live(objects(d(lbDual, es, on))...)...),
	}, {
		Name:    "steady state, endpointslices, DomainInternal",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbInternal, live(objects(d(lbInternal, es, on))...)...),
	}, {
		Name:       "steady state, endpointslices, Domain",
		Key:        key,
		Ctx:        withMode(es, on),
		Objects:    base(markedRoute(route, fallbackWarning(h)), lbDomain, live(objects(d(lbDomain, es, on))...)...),
		WantEvents: []string{fallbackWarning(h), fallbackWarning(tg)},
	}, {
		Name:    "steady state, endpointslices, MeshOnly",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbMesh, live(objects(d(lbMesh, es, on))...)...),
	}, {
		Name:    "steady state, endpointslices, none",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbNone, live(objects(d(lbNone, es, on))...)...),
	}, {
		Name:    "steady state, endpointsandslices, IP",
		Key:     key,
		Ctx:     withMode(eps, on),
		Objects: base(route, lbIP, live(objects(d(lbIP, eps, on))...)...),
	}, {
		Name:    "steady state, endpointsandslices, IPv4+IPv6",
		Key:     key,
		Ctx:     withMode(eps, on),
		Objects: base(route, lbDual, live(objects(d(lbDual, eps, on))...)...),
	}, {
		Name:    "steady state, endpointsandslices, DomainInternal",
		Key:     key,
		Ctx:     withMode(eps, on),
		Objects: base(route, lbInternal, live(objects(d(lbInternal, eps, on))...)...),
	}, {
		Name:       "steady state, endpointsandslices, Domain",
		Key:        key,
		Ctx:        withMode(eps, on),
		Objects:    base(markedRoute(route, fallbackWarning(h)), lbDomain, live(objects(d(lbDomain, eps, on))...)...),
		WantEvents: []string{fallbackWarning(h), fallbackWarning(tg)},
	}, {
		Name:    "steady state, endpointsandslices, MeshOnly",
		Key:     key,
		Ctx:     withMode(eps, on),
		Objects: base(route, lbMesh, live(objects(d(lbMesh, eps, on))...)...),
	}, {
		Name:    "steady state, endpointsandslices, none",
		Key:     key,
		Ctx:     withMode(eps, on),
		Objects: base(route, lbNone, live(objects(d(lbNone, eps, on))...)...),
	}}...)

	table.Test(t, recording(factory()))
}
