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

	. "knative.dev/pkg/reconciler/testing"

	netcfg "knative.dev/route-address/pkg/networking/config"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// TestReconcileSteadyState: every mode and load balancer shape, converged
// and server-defaulted, sends nothing.
func TestReconcileSteadyState(t *testing.T) {
	route := rt.Route(true)
	es, ep, eps, en := netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressModeEndpointsAndSlices, netcfg.RouteAddressModeExternalName
	on := netcfg.RouteAddressFallbackEnabled
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
		Name: "steady state, endpoints, IP",
		Key:  key,
		Ctx:  withMode(ep, on),
		Objects: base(route, lbIP, live(
			rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7"}),
			rt.HeadlessService(tg), rt.Endpoints(tg, []string{"10.0.0.7"}),
		)...),
	}, {
		Name: "steady state, endpoints, IPv4+IPv6",
		Key:  key,
		Ctx:  withMode(ep, on),
		Objects: base(route, lbDual, live(
			rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7", "fd00::7"}),
			rt.HeadlessService(tg), rt.Endpoints(tg, []string{"10.0.0.7", "fd00::7"}),
		)...),
	}, {
		Name: "steady state, endpoints, DomainInternal",
		Key:  key,
		Ctx:  withMode(ep, on),
		Objects: base(route, lbInternal, live(
			rt.HeadlessService(h), rt.Endpoints(h, []string{"10.96.100.10"}),
			rt.HeadlessService(tg), rt.Endpoints(tg, []string{"10.96.100.10"}),
		)...),
	}, {
		Name: "steady state, endpoints, Domain",
		Key:  key,
		Ctx:  withMode(ep, on),
		Objects: base(route, lbDomain, live(
			rt.HeadlessService(h, rt.WithExternalName("lb.example.com")),
			rt.HeadlessService(tg, rt.WithExternalName("lb.example.com")),
		)...),
		WantEvents: []string{fallbackWarning(h), fallbackWarning(tg)},
	}, {
		Name:    "steady state, endpoints, MeshOnly",
		Key:     key,
		Ctx:     withMode(ep, on),
		Objects: base(route, lbMesh, live(rt.HeadlessService(h, rt.WithMeshClusterIP), rt.HeadlessService(tg, rt.WithMeshClusterIP))...),
	}, {
		Name:    "steady state, endpoints, none",
		Key:     key,
		Ctx:     withMode(ep, on),
		Objects: base(route, lbNone, live(rt.HeadlessService(h), rt.HeadlessService(tg))...),
	}, {
		Name:    "steady state, endpointslices, IP",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbIP, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"), rt.HeadlessService(tg), rt.Slice(tg, ipv4, "10.0.0.7"))...),
	}, {
		Name: "steady state, endpointslices, IPv4+IPv6",
		Key:  key,
		Ctx:  withMode(es, on),
		Objects: base(route, lbDual, live(
			rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"), rt.Slice(h, ipv6, "fd00::7"),
			rt.HeadlessService(tg), rt.Slice(tg, ipv4, "10.0.0.7"), rt.Slice(tg, ipv6, "fd00::7"),
		)...),
	}, {
		Name: "steady state, endpointslices, DomainInternal",
		Key:  key,
		Ctx:  withMode(es, on),
		Objects: base(route, lbInternal, live(
			rt.HeadlessService(h), rt.Slice(h, ipv4, "10.96.100.10"),
			rt.HeadlessService(tg), rt.Slice(tg, ipv4, "10.96.100.10"),
		)...),
	}, {
		Name: "steady state, endpointslices, Domain",
		Key:  key,
		Ctx:  withMode(es, on),
		Objects: base(route, lbDomain, live(
			rt.HeadlessService(h, rt.WithExternalName("lb.example.com")),
			rt.HeadlessService(tg, rt.WithExternalName("lb.example.com")),
		)...),
		WantEvents: []string{fallbackWarning(h), fallbackWarning(tg)},
	}, {
		Name:    "steady state, endpointslices, MeshOnly",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbMesh, live(rt.HeadlessService(h, rt.WithMeshClusterIP), rt.HeadlessService(tg, rt.WithMeshClusterIP))...),
	}, {
		Name:    "steady state, endpointslices, none",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbNone, live(rt.HeadlessService(h), rt.HeadlessService(tg))...),
	}, {
		Name: "steady state, endpointsandslices, IP",
		Key:  key,
		Ctx:  withMode(eps, on),
		Objects: base(route, lbIP, live(
			rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7"}, rt.WithSkipMirror), rt.Slice(h, ipv4, "10.0.0.7"),
			rt.HeadlessService(tg), rt.Endpoints(tg, []string{"10.0.0.7"}, rt.WithSkipMirror), rt.Slice(tg, ipv4, "10.0.0.7"),
		)...),
	}, {
		Name: "steady state, endpointsandslices, IPv4+IPv6",
		Key:  key,
		Ctx:  withMode(eps, on),
		Objects: base(route, lbDual, live(
			rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7", "fd00::7"}, rt.WithSkipMirror), rt.Slice(h, ipv4, "10.0.0.7"), rt.Slice(h, ipv6, "fd00::7"),
			rt.HeadlessService(tg), rt.Endpoints(tg, []string{"10.0.0.7", "fd00::7"}, rt.WithSkipMirror), rt.Slice(tg, ipv4, "10.0.0.7"), rt.Slice(tg, ipv6, "fd00::7"),
		)...),
	}, {
		Name: "steady state, endpointsandslices, DomainInternal",
		Key:  key,
		Ctx:  withMode(eps, on),
		Objects: base(route, lbInternal, live(
			rt.HeadlessService(h), rt.Endpoints(h, []string{"10.96.100.10"}, rt.WithSkipMirror), rt.Slice(h, ipv4, "10.96.100.10"),
			rt.HeadlessService(tg), rt.Endpoints(tg, []string{"10.96.100.10"}, rt.WithSkipMirror), rt.Slice(tg, ipv4, "10.96.100.10"),
		)...),
	}, {
		Name: "steady state, endpointsandslices, Domain",
		Key:  key,
		Ctx:  withMode(eps, on),
		Objects: base(route, lbDomain, live(
			rt.HeadlessService(h, rt.WithExternalName("lb.example.com")),
			rt.HeadlessService(tg, rt.WithExternalName("lb.example.com")),
		)...),
		WantEvents: []string{fallbackWarning(h), fallbackWarning(tg)},
	}, {
		Name:    "steady state, endpointsandslices, MeshOnly",
		Key:     key,
		Ctx:     withMode(eps, on),
		Objects: base(route, lbMesh, live(rt.HeadlessService(h, rt.WithMeshClusterIP), rt.HeadlessService(tg, rt.WithMeshClusterIP))...),
	}, {
		Name:    "steady state, endpointsandslices, none",
		Key:     key,
		Ctx:     withMode(eps, on),
		Objects: base(route, lbNone, live(rt.HeadlessService(h), rt.HeadlessService(tg))...),
	}}...)

	table.Test(t, recording(factory()))
}
