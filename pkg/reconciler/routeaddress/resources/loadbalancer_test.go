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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"

	. "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// lbCase is a load balancer status, the Services it may name, and what it
// resolves to (the rest of what MakeAddressing makes of it in
// addressing_test.go).
// refusesTwo is the route reconciler's error for a load balancer of more
// than one entry (MakeK8sService).
const refusesTwo = "more than one ingress are specified in status(LoadBalancer) of Ingress hello"

type lbCase struct {
	name string
	// entries of the private load balancer; nil with noIngress means no
	// KIngress at all, nil alone a KIngress without status.
	entries   []netv1alpha1.LoadBalancerIngressStatus
	noIngress bool
	gateway   *corev1.Service

	addrs      []string
	port       int32
	mesh       bool
	fallback   string
	problems   []Reason
	referenced bool
	handback   RouteReconcilerShape
}

var lbCases = []lbCase{{
	name:      "no KIngress yet",
	noIngress: true,
}, {
	name: "KIngress without load balancer",
}, {
	name:     "IP",
	entries:  []netv1alpha1.LoadBalancerIngressStatus{IP("10.0.0.7")},
	addrs:    []string{"10.0.0.7"},
	port:     80,
	handback: RouteReconcilerShape{Ready: true, Endpoints: true},
}, {
	name:     "two IPs of both families",
	entries:  []netv1alpha1.LoadBalancerIngressStatus{IP("fd00::7"), IP("10.0.0.7")},
	addrs:    []string{"10.0.0.7", "fd00::7"},
	port:     80,
	handback: RouteReconcilerShape{Refusal: refusesTwo}, // the route reconciler refuses more than one entry
}, {
	name:     "IP and DomainInternal in one entry (net-contour)",
	entries:  []netv1alpha1.LoadBalancerIngressStatus{{IP: "10.0.0.8", DomainInternal: GatewayDomain}},
	addrs:    []string{"10.0.0.8"},
	port:     80,
	handback: RouteReconcilerShape{Ready: true, Endpoints: true},
}, {
	name:       "DomainInternal resolvable",
	entries:    []netv1alpha1.LoadBalancerIngressStatus{DomainInternal(GatewayDomain)},
	gateway:    GatewayService([]string{"10.96.0.10"}),
	addrs:      []string{"10.96.0.10"},
	port:       80,
	referenced: true,
	handback:   RouteReconcilerShape{Ready: true},
}, {
	name:    "DomainInternal dual stack, only a port named http2",
	entries: []netv1alpha1.LoadBalancerIngressStatus{DomainInternal(GatewayDomain + ".")},
	gateway: GatewayService([]string{"fd00:10:96::a", "10.96.0.10"},
		corev1.ServicePort{Name: "metrics", Port: 9090},
		corev1.ServicePort{Name: "http2", Port: 8080}),
	addrs:      []string{"10.96.0.10", "fd00:10:96::a"},
	port:       8080,
	referenced: true,
	handback:   RouteReconcilerShape{Ready: true},
}, {
	name:       "DomainInternal Service missing",
	entries:    []netv1alpha1.LoadBalancerIngressStatus{DomainInternal(GatewayDomain)},
	fallback:   GatewayDomain,
	problems:   []Reason{ReasonServiceNotFound},
	referenced: true,
	handback:   RouteReconcilerShape{Ready: true},
}, {
	name:    "DomainInternal Service headless",
	entries: []netv1alpha1.LoadBalancerIngressStatus{DomainInternal(GatewayDomain)},
	gateway: func() *corev1.Service {
		s := GatewayService(nil)
		s.Spec.ClusterIP = corev1.ClusterIPNone
		return s
	}(),
	fallback:   GatewayDomain,
	problems:   []Reason{ReasonServiceHeadless},
	referenced: true,
	handback:   RouteReconcilerShape{Ready: true},
}, {
	name:    "DomainInternal Service ExternalName",
	entries: []netv1alpha1.LoadBalancerIngressStatus{DomainInternal(GatewayDomain)},
	gateway: func() *corev1.Service {
		s := GatewayService(nil)
		s.Spec.Type, s.Spec.ExternalName = corev1.ServiceTypeExternalName, "elsewhere.example.com"
		return s
	}(),
	fallback:   GatewayDomain,
	problems:   []Reason{ReasonServiceExternalName},
	referenced: true,
	handback:   RouteReconcilerShape{Ready: true},
}, {
	name:       "DomainInternal Service without a usable port",
	entries:    []netv1alpha1.LoadBalancerIngressStatus{DomainInternal(GatewayDomain)},
	gateway:    GatewayService([]string{"10.96.0.10"}, corev1.ServicePort{Name: "grpc", Port: 9000}),
	fallback:   GatewayDomain,
	problems:   []Reason{ReasonNoPort},
	referenced: true,
	handback:   RouteReconcilerShape{Ready: true},
}, {
	name:    "DomainInternal Service with only spec.clusterIP",
	entries: []netv1alpha1.LoadBalancerIngressStatus{DomainInternal(GatewayDomain)},
	gateway: func() *corev1.Service {
		s := GatewayService(nil)
		s.Spec.ClusterIP = "10.96.0.10"
		return s
	}(),
	addrs:      []string{"10.96.0.10"},
	port:       80,
	referenced: true,
	handback:   RouteReconcilerShape{Ready: true},
}, {
	name:       "DomainInternal Service without a cluster IP",
	entries:    []netv1alpha1.LoadBalancerIngressStatus{DomainInternal(GatewayDomain)},
	gateway:    GatewayService(nil),
	fallback:   GatewayDomain,
	problems:   []Reason{ReasonNoClusterIP},
	referenced: true,
	handback:   RouteReconcilerShape{Ready: true},
}, {
	name:    "DomainInternal port 80 is UDP: the TCP port named http2 before the one named http",
	entries: []netv1alpha1.LoadBalancerIngressStatus{DomainInternal(GatewayDomain)},
	gateway: GatewayService([]string{"10.96.0.10"},
		corev1.ServicePort{Name: "dns", Port: 80, Protocol: corev1.ProtocolUDP},
		corev1.ServicePort{Name: "http", Port: 8081},
		corev1.ServicePort{Name: "http2", Port: 8082}),
	addrs:      []string{"10.96.0.10"},
	port:       8082,
	referenced: true,
	handback:   RouteReconcilerShape{Ready: true},
}, {
	name:    "DomainInternal only a port named http",
	entries: []netv1alpha1.LoadBalancerIngressStatus{DomainInternal(GatewayDomain)},
	gateway: GatewayService([]string{"10.96.0.10"},
		corev1.ServicePort{Name: "metrics", Port: 9090},
		corev1.ServicePort{Name: "http", Port: 8081, Protocol: corev1.ProtocolTCP}),
	addrs:      []string{"10.96.0.10"},
	port:       8081,
	referenced: true,
	handback:   RouteReconcilerShape{Ready: true},
}, {
	name:     "DomainInternal outside the cluster domain",
	entries:  []netv1alpha1.LoadBalancerIngressStatus{DomainInternal("gateway.corp.example.com")},
	fallback: "gateway.corp.example.com",
	problems: []Reason{ReasonNotClusterService},
	handback: RouteReconcilerShape{Ready: true},
}, {
	name:     "external Domain",
	entries:  []netv1alpha1.LoadBalancerIngressStatus{Domain("lb.example.com")},
	fallback: "lb.example.com",
	problems: []Reason{ReasonExternalDomain},
	handback: RouteReconcilerShape{Ready: true},
}, {
	name:     "IP that does not parse",
	entries:  []netv1alpha1.LoadBalancerIngressStatus{IP("10.0.0.300")},
	problems: []Reason{ReasonInvalidIP},
	handback: RouteReconcilerShape{Ready: true, Endpoints: true},
}, {
	name:     "loopback IP",
	entries:  []netv1alpha1.LoadBalancerIngressStatus{IP("127.0.0.1")},
	problems: []Reason{ReasonAddressNotAllowed},
	handback: RouteReconcilerShape{Ready: true, Endpoints: true},
}, {
	name:     "addresses the apiserver refuses in endpoints, one usable",
	entries:  []netv1alpha1.LoadBalancerIngressStatus{IP("::1"), IP("169.254.1.1"), IP("fe80::1"), IP("0.0.0.0"), IP("::"), IP("224.0.0.1"), IP("ff02::1"), IP("10.0.0.7")},
	addrs:    []string{"10.0.0.7"},
	port:     80,
	problems: []Reason{ReasonAddressNotAllowed, ReasonAddressNotAllowed, ReasonAddressNotAllowed, ReasonAddressNotAllowed, ReasonAddressNotAllowed, ReasonAddressNotAllowed, ReasonAddressNotAllowed},
	handback: RouteReconcilerShape{Refusal: refusesTwo},
}, {
	name:     "IPv4-mapped IPv6 address: used as IPv4, and said so",
	entries:  []netv1alpha1.LoadBalancerIngressStatus{IP("::ffff:10.0.0.7")},
	addrs:    []string{"10.0.0.7"},
	port:     80,
	problems: []Reason{ReasonMappedAddress},
	handback: RouteReconcilerShape{Ready: true, Endpoints: true},
}, {
	name:       "DomainInternal in upper case",
	entries:    []netv1alpha1.LoadBalancerIngressStatus{DomainInternal("Kourier-Internal.KOURIER-SYSTEM.svc.Cluster.Local")},
	gateway:    GatewayService([]string{"10.96.0.10"}),
	addrs:      []string{"10.96.0.10"},
	port:       80,
	referenced: true,
	handback:   RouteReconcilerShape{Ready: true},
}, {
	name:       "DomainInternal <service>.<namespace>.svc",
	entries:    []netv1alpha1.LoadBalancerIngressStatus{DomainInternal(GatewayName + "." + GatewayNamespace + ".svc")},
	gateway:    GatewayService([]string{"10.96.0.10"}),
	addrs:      []string{"10.96.0.10"},
	port:       80,
	referenced: true,
	handback:   RouteReconcilerShape{Ready: true},
}, {
	name:       "DomainInternal <service>.<namespace>. with a trailing dot",
	entries:    []netv1alpha1.LoadBalancerIngressStatus{DomainInternal(GatewayName + "." + GatewayNamespace + ".")},
	gateway:    GatewayService([]string{"10.96.0.10"}),
	addrs:      []string{"10.96.0.10"},
	port:       80,
	referenced: true,
	handback:   RouteReconcilerShape{Ready: true},
}, {
	name:       "DomainInternal in upper case, Service missing: the fallback is lower case",
	entries:    []netv1alpha1.LoadBalancerIngressStatus{DomainInternal("Missing.Kourier-System.svc.cluster.local")},
	fallback:   "missing.kourier-system.svc.cluster.local",
	problems:   []Reason{ReasonServiceNotFound},
	referenced: true,
	handback:   RouteReconcilerShape{Ready: true},
}, {
	name:     "MeshOnly",
	entries:  []netv1alpha1.LoadBalancerIngressStatus{MeshOnly()},
	mesh:     true,
	handback: RouteReconcilerShape{Ready: true},
}, {
	name:       "one entry resolves, one does not",
	entries:    []netv1alpha1.LoadBalancerIngressStatus{Domain("lb.example.com"), DomainInternal(GatewayDomain)},
	gateway:    GatewayService([]string{"10.96.0.10"}),
	addrs:      []string{"10.96.0.10"},
	port:       80,
	problems:   []Reason{ReasonExternalDomain},
	referenced: true,
	handback:   RouteReconcilerShape{Refusal: refusesTwo},
}, {
	name:     "entries on different ports",
	entries:  []netv1alpha1.LoadBalancerIngressStatus{IP("10.0.0.7"), DomainInternal(GatewayDomain)},
	gateway:  GatewayService([]string{"10.96.0.10"}, corev1.ServicePort{Name: "http2", Port: 8080}),
	addrs:    []string{"10.0.0.7"},
	port:     80,
	problems: []Reason{ReasonPortMismatch},
	// the second entry is still looked at, so it is still tracked.
	referenced: true,
	handback:   RouteReconcilerShape{Refusal: refusesTwo},
}}

func (c lbCase) inputs() (*netv1alpha1.Ingress, []*corev1.Service) {
	var svcs []*corev1.Service
	if c.gateway != nil {
		svcs = append(svcs, c.gateway)
	}
	if c.noIngress {
		return nil, svcs
	}
	return Ingress(Route(true), c.entries...), svcs
}

// TestResolve resolves every load balancer case: its addresses and port,
// MeshOnly, the fallback entry where nothing resolved, the problems and the
// Services it names.
func TestResolve(t *testing.T) {
	for _, c := range lbCases {
		t.Run(c.name, func(t *testing.T) {
			ing, svcs := c.inputs()
			got := Resolve(LoadBalancer(ing, false), ServiceLister(svcs...))
			var addrs []string
			for _, a := range got.Addresses {
				addrs = append(addrs, a.String())
			}
			if diff := cmp.Diff(c.addrs, addrs, cmpopts.EquateEmpty()); diff != "" {
				t.Error("Addresses (-want +got):", diff)
			}
			if len(addrs) > 0 && got.Port != c.port {
				t.Errorf("Port = %d, want %d", got.Port, c.port)
			}
			if got.MeshOnly != (c.mesh && len(addrs) == 0) {
				t.Errorf("MeshOnly = %v, want %v", got.MeshOnly, c.mesh)
			}
			fallback := ""
			if f := got.Fallback; f != nil {
				fallback = f.DomainInternal + f.Domain
			}
			if len(addrs) == 0 && fallback != c.fallback {
				t.Errorf("Fallback = %q, want %q", fallback, c.fallback)
			}
			var reasons []Reason
			for _, p := range got.Problems {
				reasons = append(reasons, p.Reason)
				if !strings.Contains(p.String(), string(p.Reason)) {
					t.Errorf("problem %q does not name its reason", p)
				}
			}
			if diff := cmp.Diff(c.problems, reasons, cmpopts.EquateEmpty()); diff != "" {
				t.Error("Problems (-want +got):", diff)
			}
			if (len(got.Referenced) > 0) != c.referenced {
				t.Errorf("Referenced = %v, want some: %v", got.Referenced, c.referenced)
			}
		})
	}
}

func TestLoadBalancerChoice(t *testing.T) {
	route := Route(false)
	public := &netv1alpha1.LoadBalancerStatus{Ingress: []netv1alpha1.LoadBalancerIngressStatus{Domain("public.example.com")}}
	private := &netv1alpha1.LoadBalancerStatus{Ingress: []netv1alpha1.LoadBalancerIngressStatus{IP("10.0.0.1")}}
	for _, tc := range []struct {
		name            string
		public, private *netv1alpha1.LoadBalancerStatus
		isPrivate       bool
		want            *netv1alpha1.LoadBalancerStatus
	}{
		{"private wins", public, private, false, private},
		{"public when no private", public, nil, false, public},
		{"public when private is empty", public, &netv1alpha1.LoadBalancerStatus{}, false, public},
		{"cluster-local never uses public", public, nil, true, nil},
		{"none", nil, nil, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ing := Ingress(route)
			ing.Status.PublicLoadBalancer, ing.Status.PrivateLoadBalancer = tc.public, tc.private
			if got := LoadBalancer(ing, tc.isPrivate); got != tc.want {
				t.Errorf("LoadBalancer() = %v, want %v", got, tc.want)
			}
		})
	}
	if LoadBalancer(nil, false) != nil {
		t.Error("LoadBalancer(nil) != nil")
	}
}

func TestSplitServiceDomain(t *testing.T) {
	for _, tc := range []struct {
		in       string
		name, ns string
		ok       bool
	}{
		{"gw.ns.svc.cluster.local", "gw", "ns", true},
		{"gw.ns.svc.cluster.local.", "gw", "ns", true},
		{"GW.Ns.SVC.Cluster.Local", "gw", "ns", true},
		{"gw.ns.svc", "gw", "ns", true},
		{"gw.ns.svc.", "gw", "ns", true},
		{"gw.ns", "gw", "ns", true},
		{"gw.ns.", "gw", "ns", true},
		{"gw", "", "", false},
		{"gw.sub.ns.svc.cluster.local", "", "", false},
		{".ns.svc.cluster.local", "", "", false},
		{"gw..svc", "", "", false},
		{"gw.svc.cluster.local", "", "", false},
		{"gw.ns.svc.other.local", "", "", false},
		{"gateway.corp.example.com", "", "", false},
		{"gw_1.ns", "", "", false},
	} {
		name, ns, ok := splitServiceDomain(tc.in)
		if name != tc.name || ns != tc.ns || ok != tc.ok {
			t.Errorf("splitServiceDomain(%q) = %q, %q, %v; want %q, %q, %v", tc.in, name, ns, ok, tc.name, tc.ns, tc.ok)
		}
	}
}

func TestProblemMessagesNameTheObject(t *testing.T) {
	route := Route(false)
	ing := Ingress(route, DomainInternal(GatewayDomain))
	r := Resolve(LoadBalancer(ing, false), ServiceLister())
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].String(), GatewayNamespace+"/"+GatewayName) {
		t.Errorf("problems = %v, want one naming %s/%s", r.Problems, GatewayNamespace, GatewayName)
	}
}
