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

package testing

import (
	"context"

	networkingcfg "knative.dev/networking/pkg/config"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	"knative.dev/pkg/kmeta"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"
	"knative.dev/serving/pkg/reconciler/route/resources/names"
)

const (
	// Namespace is where the test Routes live.
	Namespace = "default"
	// RouteName is the name of the test Route.
	RouteName = "hello"
	// RouteUID is the UID of the test Route.
	RouteUID = types.UID("route-uid")
	// Tag is the traffic tag of the test Route.
	Tag = "canary"
	// TagService is the name of the tag's Service.
	TagService = Tag + "-" + RouteName
	// GatewayNamespace and GatewayName name the internal gateway Service.
	GatewayNamespace = "kourier-system"
	// GatewayName is the internal gateway Service's name.
	GatewayName = "kourier-internal"
	// GatewayDomain is the gateway's DomainInternal.
	GatewayDomain = GatewayName + "." + GatewayNamespace + ".svc.cluster.local"
)

// RouteConfig is the route reconciler configuration the route reconciler's resource
// constructors read: example.com and the default templates.
func RouteConfig() *routecfg.Config {
	return &routecfg.Config{
		Domain: &routecfg.Domain{Domains: map[string]routecfg.DomainConfig{"example.com": {}}},
		Network: &networkingcfg.Config{
			DomainTemplate: networkingcfg.DefaultDomainTemplate,
			TagTemplate:    networkingcfg.DefaultTagTemplate,
		},
	}
}

// WithRouteConfig returns ctx carrying RouteConfig.
func WithRouteConfig(ctx context.Context) context.Context {
	return routecfg.ToContext(ctx, RouteConfig())
}

// Route returns the test Route, with a traffic tag when tagged.
func Route(tagged bool) *v1.Route {
	r := &v1.Route{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   Namespace,
			Name:        RouteName,
			UID:         RouteUID,
			Labels:      map[string]string{"app": "hello"},
			Annotations: map[string]string{"team": "blue"},
		},
		Spec: v1.RouteSpec{Traffic: []v1.TrafficTarget{{
			ConfigurationName: "hello", Percent: ptr.To(int64(100)), LatestRevision: ptr.To(true),
		}}},
	}
	if tagged {
		r.Spec.Traffic = append(r.Spec.Traffic, v1.TrafficTarget{
			Tag: Tag, RevisionName: "hello-00001", LatestRevision: ptr.To(false),
		})
	}
	return r
}

// Ingress returns the Route's KIngress with the given private load
// balancer entries (none: no status yet).
func Ingress(route *v1.Route, entries ...netv1alpha1.LoadBalancerIngressStatus) *netv1alpha1.Ingress {
	ing := &netv1alpha1.Ingress{ObjectMeta: metav1.ObjectMeta{
		Namespace:       route.Namespace,
		Name:            names.Ingress(route),
		OwnerReferences: []metav1.OwnerReference{*kmeta.NewControllerRef(route)},
	}}
	if len(entries) > 0 {
		ing.Status.PrivateLoadBalancer = &netv1alpha1.LoadBalancerStatus{Ingress: entries}
		ing.Status.PublicLoadBalancer = &netv1alpha1.LoadBalancerStatus{Ingress: []netv1alpha1.LoadBalancerIngressStatus{{Domain: "public.example.com"}}}
	}
	return ing
}

// IP is a load balancer entry with an IP.
func IP(ip string) netv1alpha1.LoadBalancerIngressStatus {
	return netv1alpha1.LoadBalancerIngressStatus{IP: ip}
}

// DomainInternal is a load balancer entry with a DomainInternal.
func DomainInternal(d string) netv1alpha1.LoadBalancerIngressStatus {
	return netv1alpha1.LoadBalancerIngressStatus{DomainInternal: d}
}

// Domain is a load balancer entry with an external Domain.
func Domain(d string) netv1alpha1.LoadBalancerIngressStatus {
	return netv1alpha1.LoadBalancerIngressStatus{Domain: d}
}

// MeshOnly is a MeshOnly load balancer entry.
func MeshOnly() netv1alpha1.LoadBalancerIngressStatus {
	return netv1alpha1.LoadBalancerIngressStatus{MeshOnly: true}
}

// GatewayService returns the internal gateway Service with the given
// cluster IPs and ports (port 80→8081 named http2 when none are given).
func GatewayService(clusterIPs []string, ports ...corev1.ServicePort) *corev1.Service {
	if len(ports) == 0 {
		ports = []corev1.ServicePort{{Name: "http2", Port: 80, Protocol: corev1.ProtocolTCP}}
	}
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: GatewayNamespace, Name: GatewayName},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIPs: clusterIPs, Ports: ports},
	}
	if len(clusterIPs) > 0 {
		s.Spec.ClusterIP = clusterIPs[0]
	}
	return s
}

// ServiceLister returns a lister over the given Services.
func ServiceLister(svcs ...*corev1.Service) corev1listers.ServiceLister {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, s := range svcs {
		if err := idx.Add(s); err != nil {
			panic(err)
		}
	}
	return corev1listers.NewServiceLister(idx)
}
