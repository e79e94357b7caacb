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

package resources

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	"knative.dev/pkg/kmeta"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	routeresources "knative.dev/serving/pkg/reconciler/route/resources"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
	. "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

type summary struct {
	Shape           Shape
	Type            corev1.ServiceType
	ClusterIP       string
	ExternalName    string
	Endpoints       string
	SkipMirror      bool
	Slices          []string
	Problems        []Reason
	Referenced      bool
	RouteReconciler RouteReconcilerShape
}

func summarize(a *Addressing) summary {
	s := summary{Shape: a.Shape, Referenced: len(a.Resolution.Referenced) > 0, RouteReconciler: a.RouteReconciler}
	if a.Service != nil {
		s.Type, s.ClusterIP, s.ExternalName = a.Service.Spec.Type, a.Service.Spec.ClusterIP, a.Service.Spec.ExternalName
	}
	if a.Endpoints != nil {
		var ips []string
		for _, ad := range a.Endpoints.Subsets[0].Addresses {
			ips = append(ips, ad.IP)
		}
		s.Endpoints = fmt.Sprintf("%s:%d", strings.Join(ips, ","), a.Endpoints.Subsets[0].Ports[0].Port)
		s.SkipMirror = a.Endpoints.Labels[discoveryv1.LabelSkipMirror] == "true"
	}
	for _, sl := range a.Slices {
		var ips []string
		for _, e := range sl.Endpoints {
			ips = append(ips, e.Addresses...)
		}
		s.Slices = append(s.Slices, fmt.Sprintf("%s %s %s:%d", sl.Name, sl.AddressType, strings.Join(ips, ","), *sl.Ports[0].Port))
	}
	for _, p := range a.Resolution.Problems {
		s.Problems = append(s.Problems, p.Reason)
	}
	return s
}

// expect spells out, per mode and fallback, what each load balancer case
// must give.
func expect(c lbCase, settings *netcfg.Config, svcName string) summary {
	s := summary{Problems: c.problems, Referenced: c.referenced}
	if !settings.RouteAddressMode.Managed() {
		return summary{Shape: ShapeRouteReconciler, RouteReconciler: c.handback}
	}
	switch {
	case len(c.entries) == 0:
		// No load balancer: keep what exists, else a headless placeholder.
		s.Shape, s.Type, s.ClusterIP = ShapeKept, corev1.ServiceTypeClusterIP, corev1.ClusterIPNone
	case len(c.addrs) > 0:
		s.Shape, s.Type, s.ClusterIP = ShapeHeadless, corev1.ServiceTypeClusterIP, corev1.ClusterIPNone
		if settings.RouteAddressMode.WritesEndpoints() {
			s.Endpoints = fmt.Sprintf("%s:%d", strings.Join(c.addrs, ","), c.port)
			s.SkipMirror = settings.RouteAddressMode == netcfg.RouteAddressModeEndpointsAndSlices
		}
		if settings.RouteAddressMode.WritesEndpointSlices() {
			var v4, v6 []string
			for _, a := range c.addrs {
				if strings.Contains(a, ":") {
					v6 = append(v6, a)
				} else {
					v4 = append(v4, a)
				}
			}
			if len(v4) > 0 {
				s.Slices = append(s.Slices, fmt.Sprintf("%s-ipv4 IPv4 %s:%d", svcName, strings.Join(v4, ","), c.port))
			}
			if len(v6) > 0 {
				s.Slices = append(s.Slices, fmt.Sprintf("%s-ipv6 IPv6 %s:%d", svcName, strings.Join(v6, ","), c.port))
			}
		}
	case c.mesh:
		s.Shape, s.Type = ShapeMesh, corev1.ServiceTypeClusterIP
	case c.fallback != "" && settings.RouteAddressExternalNameFallback == netcfg.RouteAddressFallbackEnabled:
		s.Shape, s.Type, s.ExternalName = ShapeExternalName, corev1.ServiceTypeExternalName, c.fallback
	default:
		s.Shape, s.Type, s.ClusterIP = ShapeHeadlessEmpty, corev1.ServiceTypeClusterIP, corev1.ClusterIPNone
	}
	return s
}

// TestMakeAddressingMatrix runs every load balancer shape through every
// mode and fallback, for the Route's own name and its tag.
func TestMakeAddressingMatrix(t *testing.T) {
	ctx := WithRouteConfig(context.Background())
	route := Route(true)
	for _, c := range lbCases {
		for _, mode := range netcfg.RouteAddressModes {
			for _, fb := range netcfg.RouteAddressFallbacks {
				for _, tag := range []string{"", Tag} {
					settings := &netcfg.Config{RouteAddressMode: mode, RouteAddressExternalNameFallback: fb}
					t.Run(fmt.Sprintf("%s/%s/fallback=%s/tag=%q", c.name, mode, fb, tag), func(t *testing.T) {
						ing, svcs := c.inputs()
						got, err := MakeAddressing(ctx, route, placeholder(t, ctx, route, tag), false, Source{Ingress: ing, Network: settings, Resolver: NewResolver(ServiceLister(svcs...))})
						if err != nil {
							t.Fatal("MakeAddressing() =", err)
						}
						wantName := RouteName
						if tag != "" {
							wantName = TagService
						}
						if got.Name != wantName || got.Tag != tag {
							t.Errorf("Name, Tag = %q, %q; want %q, %q", got.Name, got.Tag, wantName, tag)
						}
						if diff := cmp.Diff(expect(c, settings, wantName), summarize(got)); diff != "" {
							t.Error("addressing (-want +got):", diff)
						}
						if got.Service != nil {
							// Metadata is always the route reconciler's placeholder
							// metadata; a headless Service's reference to the Route
							// does not block its deletion.
							ph, _ := routeresources.MakeK8sPlaceholderService(ctx, route, tag)
							if got.Service.Spec.ClusterIP == corev1.ClusterIPNone {
								ph.OwnerReferences[0].BlockOwnerDeletion = nil
							}
							if diff := cmp.Diff(ph.ObjectMeta, got.Service.ObjectMeta); diff != "" {
								t.Error("Service metadata differs from the route reconciler's placeholder (-want +got):", diff)
							}
						}
						if got.Service != nil && got.Service.Spec.Type == corev1.ServiceTypeExternalName && fb == netcfg.RouteAddressFallbackDisabled {
							t.Error("ExternalName Service with the fallback disabled")
						}
					})
				}
			}
		}
	}
}

// TestMakeAddressingGolden pins every field of the IP case in
// EndpointsAndSlices mode.
func TestMakeAddressingGolden(t *testing.T) {
	ctx := WithRouteConfig(context.Background())
	route := Route(true)
	ing := Ingress(route, IP("10.0.0.7"), IP("fd00::7"))
	got, err := MakeAddressing(ctx, route, placeholder(t, ctx, route, Tag), false, Source{
		Ingress:  ing,
		Network:  &netcfg.Config{RouteAddressMode: netcfg.RouteAddressModeEndpointsAndSlices, RouteAddressExternalNameFallback: netcfg.RouteAddressFallbackEnabled},
		Resolver: NewResolver(ServiceLister()),
	})
	if err != nil {
		t.Fatal(err)
	}
	meta := metav1.ObjectMeta{
		Namespace:       Namespace,
		Name:            TagService,
		Labels:          map[string]string{"app": "hello", "serving.knative.dev/route": RouteName},
		Annotations:     map[string]string{"team": "blue"},
		OwnerReferences: []metav1.OwnerReference{*kmeta.NewControllerRef(route)},
	}
	meta.OwnerReferences[0].BlockOwnerDeletion = nil
	h2c := "kubernetes.io/h2c"
	wantSvc := &corev1.Service{
		ObjectMeta: meta,
		Spec: corev1.ServiceSpec{
			Type:      corev1.ServiceTypeClusterIP,
			ClusterIP: corev1.ClusterIPNone,
			Ports:     []corev1.ServicePort{{Name: "http2", AppProtocol: &h2c, Port: 80, TargetPort: intstr.FromInt(80)}},
		},
	}
	epMeta := *meta.DeepCopy()
	epMeta.Labels["endpointslice.kubernetes.io/skip-mirror"] = "true"
	epMeta.Labels["serving.knative.dev/route-address"] = "routeaddress-controller.knative.dev"
	wantEp := &corev1.Endpoints{
		ObjectMeta: epMeta,
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "10.0.0.7"}, {IP: "fd00::7"}},
			Ports:     []corev1.EndpointPort{{Name: "http2", AppProtocol: &h2c, Port: 80}},
		}},
	}
	slice := func(name string, t discoveryv1.AddressType, ip string) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: Namespace,
				Name:      name,
				Labels: map[string]string{
					"app": "hello", "serving.knative.dev/route": RouteName,
					"kubernetes.io/service-name":             TagService,
					"endpointslice.kubernetes.io/managed-by": "routeaddress-controller.knative.dev",
				},
				// Controlled by the Service; the planner binds its UID.
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Service", Name: TagService, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
				}},
			},
			AddressType: t,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
			Ports: []discoveryv1.EndpointPort{{
				Name: ptr.To("http2"), Port: ptr.To(int32(80)), Protocol: ptr.To(corev1.ProtocolTCP), AppProtocol: &h2c,
			}},
		}
	}
	wantSlices := []*discoveryv1.EndpointSlice{
		slice(TagService+"-ipv4", discoveryv1.AddressTypeIPv4, "10.0.0.7"),
		slice(TagService+"-ipv6", discoveryv1.AddressTypeIPv6, "fd00::7"),
	}
	if diff := cmp.Diff(wantSvc, got.Service); diff != "" {
		t.Error("Service (-want +got):", diff)
	}
	if diff := cmp.Diff(wantEp, got.Endpoints); diff != "" {
		t.Error("Endpoints (-want +got):", diff)
	}
	if diff := cmp.Diff(wantSlices, got.Slices); diff != "" {
		t.Error("EndpointSlices (-want +got):", diff)
	}
	// The Service's labels were not changed by the Endpoints' skip-mirror label.
	if _, ok := got.Service.Labels["endpointslice.kubernetes.io/skip-mirror"]; ok {
		t.Error("skip-mirror label leaked into the Service")
	}
}

// TestParityWithRouteReconciler checks the shapes meant to match the route reconciler's
// MakeK8sService do match it, field for field.
func TestParityWithRouteReconciler(t *testing.T) {
	ctx := WithRouteConfig(context.Background())
	route := Route(true)
	for _, tc := range []struct {
		name  string
		mode  netcfg.RouteAddressMode
		entry netv1alpha1.LoadBalancerIngressStatus
		svcs  []*corev1.Service
	}{
		{"IP, Endpoints mode", netcfg.RouteAddressModeEndpoints, IP("10.0.0.7"), nil},
		{"MeshOnly", netcfg.RouteAddressModeEndpointSlices, MeshOnly(), nil},
		{"unresolvable DomainInternal falls back", netcfg.RouteAddressModeEndpointsAndSlices, DomainInternal(GatewayDomain), nil},
		{"external Domain falls back", netcfg.RouteAddressModeEndpoints, Domain("lb.example.com"), nil},
	} {
		for _, tag := range []string{"", Tag} {
			t.Run(tc.name+"/"+tag, func(t *testing.T) {
				ing := Ingress(route, tc.entry)
				want, err := routeresources.MakeK8sService(ctx, route, tag, ing, false)
				if err != nil {
					t.Fatal("MakeK8sService() =", err)
				}
				got, err := MakeAddressing(ctx, route, placeholder(t, ctx, route, tag), false, Source{
					Ingress:  ing,
					Network:  &netcfg.Config{RouteAddressMode: tc.mode, RouteAddressExternalNameFallback: netcfg.RouteAddressFallbackEnabled},
					Resolver: NewResolver(ServiceLister(tc.svcs...)),
				})
				if err != nil {
					t.Fatal("MakeAddressing() =", err)
				}
				// MakeK8sService's Endpoints share the Service's metadata.
				want.Service, want.Endpoints = want.Service.DeepCopy(), want.Endpoints.DeepCopy()
				if want.Endpoints != nil {
					// Ours carry our mark, and the references of a headless
					// Service and its Endpoints to the Route do not block its
					// deletion.
					want.Endpoints.Labels[names.MarkLabel] = names.ManagedBy
					want.Endpoints.OwnerReferences[0].BlockOwnerDeletion = nil
					want.Service.OwnerReferences[0].BlockOwnerDeletion = nil
				}
				if diff := cmp.Diff(want.Service, got.Service); diff != "" {
					t.Error("Service differs from MakeK8sService's (-want +got):", diff)
				}
				if diff := cmp.Diff(want.Endpoints, got.Endpoints, cmpopts.EquateEmpty()); diff != "" {
					t.Error("Endpoints differ from MakeK8sService's (-want +got):", diff)
				}
			})
		}
	}
}

// placeholder is the route reconciler's placeholder Service for route and tag.
func placeholder(t *testing.T, ctx context.Context, route *v1.Route, tag string) *Placeholder {
	t.Helper()
	ph, err := routeresources.MakeK8sPlaceholderService(ctx, route, tag)
	if err != nil {
		t.Fatal("MakeK8sPlaceholderService() =", err)
	}
	return NewPlaceholder(tag, ph)
}

func TestShapeOf(t *testing.T) {
	svc := func(typ corev1.ServiceType, clusterIP string) *corev1.Service {
		return &corev1.Service{Spec: corev1.ServiceSpec{Type: typ, ClusterIP: clusterIP}}
	}
	for _, tc := range []struct {
		svc  *corev1.Service
		want ServiceShape
	}{
		{nil, ServiceAbsent},
		{svc(corev1.ServiceTypeExternalName, ""), ServiceExternalName},
		{svc(corev1.ServiceTypeClusterIP, corev1.ClusterIPNone), ServiceHeadless},
		{svc(corev1.ServiceTypeClusterIP, "10.0.0.1"), ServiceClusterIP},
		{svc(corev1.ServiceTypeLoadBalancer, "10.0.0.1"), ServiceClusterIP},
	} {
		if got := ShapeOf(tc.svc); got != tc.want {
			t.Errorf("ShapeOf(%v) = %q, want %q", tc.svc, got, tc.want)
		}
	}
}
