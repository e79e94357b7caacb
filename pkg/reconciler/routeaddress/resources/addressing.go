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
	"net/netip"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	netapi "knative.dev/networking/pkg/apis/networking"
	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	"knative.dev/pkg/kmap"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	routeresources "knative.dev/serving/pkg/reconciler/route/resources"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// Shape is what a Route's Service ends up as.
type Shape string

const (
	// ShapeHeadless is a headless Service whose endpoints hold the load
	// balancer's addresses.
	ShapeHeadless Shape = "Headless"
	// ShapeHeadlessEmpty is a headless Service with no endpoints: the load
	// balancer is unresolvable and the ExternalName fallback is disabled.
	ShapeHeadlessEmpty Shape = "HeadlessNoEndpoints"
	// ShapeKept means the KIngress has no load balancer (not yet, or no
	// longer): the name keeps whatever it has, and a missing Service is
	// created as a headless placeholder with no endpoints.
	ShapeKept Shape = "Kept"
	// ShapeExternalName is the route reconciler's ExternalName Service, used as the
	// fallback for an unresolvable load balancer.
	ShapeExternalName Shape = "ExternalName"
	// ShapeMesh is the route reconciler's ClusterIP Service for a MeshOnly load balancer.
	ShapeMesh Shape = "ClusterIP"
	// ShapeRouteReconciler means the Service is left to the route
	// reconciler (mode ExternalName).
	ShapeRouteReconciler Shape = "RouteReconciler"
)

// ServiceShape is what a Service is now: the one way the planner, the
// metrics and the plugin tell Services apart. Its values are the metrics'
// shape labels.
type ServiceShape string

const (
	// ServiceAbsent: there is no Service.
	ServiceAbsent ServiceShape = "absent"
	// ServiceExternalName: a Service of type ExternalName (a CNAME).
	ServiceExternalName ServiceShape = "externalname"
	// ServiceHeadless: clusterIP None; the name answers with the addresses
	// of its endpoints.
	ServiceHeadless ServiceShape = "headless"
	// ServiceClusterIP: a Service with an allocated cluster IP.
	ServiceClusterIP ServiceShape = "clusterip"
)

// ShapeOf classifies svc (ServiceAbsent when nil).
func ShapeOf(svc *corev1.Service) ServiceShape {
	if svc == nil {
		return ServiceAbsent
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return ServiceExternalName
	}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return ServiceHeadless
	}
	return ServiceClusterIP
}

// TargetTags are the traffic tags the route reconciler gives Services for: "" (the
// Route's own name) and each tag of the Route's traffic, sorted.
func TargetTags(r *v1.Route) []string {
	tags := sets.New("")
	for _, t := range r.Spec.Traffic {
		tags.Insert(t.Tag)
	}
	return sets.List(tags)
}

// Addressing is what one of a Route's cluster-local names should be.
type Addressing struct {
	// Name is the Service name.
	Name string
	// Service is the desired Service (the route reconciler's in ExternalName mode).
	Service *corev1.Service
	// Endpoints is the desired Endpoints, nil for none.
	Endpoints *corev1.Endpoints
	// Slices are the desired EndpointSlices.
	Slices []*discoveryv1.EndpointSlice
	// RouteReconciler is what the route reconciler makes of this name.
	RouteReconciler RouteReconcilerShape
	// NoLoadBalancer is true when the KIngress has no load balancer: what exists
	// under this name stays; only a missing Service is created.
	NoLoadBalancer bool
	// Tag is the traffic tag, "" for the Route's own name.
	Tag string
	// Shape summarises the desired Service.
	Shape Shape
	// Resolution is what the load balancer resolved to.
	Resolution Resolution
}

// Source is what all of a Route's names are made from.
type Source struct {
	// Ingress is the Route's KIngress, nil when it does not exist yet.
	Ingress *netv1alpha1.Ingress
	// Network is the network configuration: its route-address settings
	// choose what the names become.
	Network *netcfg.Config
	// Resolver resolves the KIngress's load balancer.
	Resolver *Resolver
}

// MakeAddressing builds what the Service of the route reconciler's
// placeholder (see Placeholders) should be, given whether the Service is
// cluster local (the route reconciler reads that off the live Service's
// visibility label). ctx must carry the route reconciler's configuration
// (domain and network), as for the route reconciler's constructors. The
// objects it returns may be shared with earlier calls (see Placeholder) and
// must not be modified.
func MakeAddressing(ctx context.Context, route *v1.Route, placeholder *Placeholder, isPrivate bool, src Source) (*Addressing, error) {
	var err error
	tag, ing, network := placeholder.Tag, src.Ingress, src.Network
	a := &Addressing{Name: placeholder.Service.Name, Tag: tag}

	lb := LoadBalancer(ing, isPrivate)
	if !network.RouteAddressMode.Managed() {
		a.Shape = ShapeRouteReconciler
		if lb != nil {
			if pair, err := routeresources.MakeK8sService(ctx, route, tag, ing, isPrivate); err == nil {
				a.RouteReconciler = RouteReconcilerShape{Ready: true, Endpoints: pair.Endpoints != nil}
			} else {
				a.RouteReconciler = RouteReconcilerShape{Refusal: err.Error()}
			}
		}
		return a, nil
	}
	if lb == nil {
		// No load balancer: a new Route waits for one, and an existing one
		// keeps its last addresses, as the route reconciler keeps its Service and
		// Endpoints while the KIngress is not ready.
		a.Shape, a.Service, a.NoLoadBalancer = ShapeKept, placeholder.headless, true
		return a, nil
	}

	a.Resolution = src.Resolver.Resolve(lb)
	res := &a.Resolution
	if len(res.Addresses) > 0 {
		a.Shape = ShapeHeadless
		a.Service = placeholder.headless
		h := placeholder.endpoints(network.RouteAddressMode, res.Addresses, res.Port)
		a.Endpoints, a.Slices = h.endpoints, h.slices
	} else if res.MeshOnly {
		a.Shape = ShapeMesh
		if a.Service, err = k8sService(ctx, route, tag, ing, netv1alpha1.LoadBalancerIngressStatus{MeshOnly: true}); err != nil {
			return nil, err
		}
	} else if res.Fallback != nil && network.RouteAddressExternalNameFallback == netcfg.RouteAddressFallbackEnabled {
		a.Shape = ShapeExternalName
		if a.Service, err = k8sService(ctx, route, tag, ing, *res.Fallback); err != nil {
			return nil, err
		}
	} else {
		// Unresolvable with the fallback disabled (or nothing to fall back
		// to).
		a.Shape = ShapeHeadlessEmpty
		a.Service = placeholder.headless
	}
	return a, nil
}

// k8sService is the route reconciler's MakeK8sService for a load balancer of the
// single entry e, so that the shapes we share with the route reconciler are its own.
func k8sService(ctx context.Context, route *v1.Route, tag string, ing *netv1alpha1.Ingress, e netv1alpha1.LoadBalancerIngressStatus) (*corev1.Service, error) {
	only := &netv1alpha1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: ing.Name, Namespace: ing.Namespace},
		Status: netv1alpha1.IngressStatus{
			PrivateLoadBalancer: &netv1alpha1.LoadBalancerStatus{Ingress: []netv1alpha1.LoadBalancerIngressStatus{e}},
		},
	}
	pair, err := routeresources.MakeK8sService(ctx, route, tag, only, true)
	if err != nil {
		return nil, fmt.Errorf("failed to construct Service for tag %q: %w", tag, err)
	}
	return pair.Service, nil
}

// headless turns the placeholder into a selector-less headless Service with
// the placeholder's metadata and ports. ipFamilies and ipFamilyPolicy are
// left to the apiserver. Its references to the Route, and so those of the
// Endpoints made from it, do not block the Route's deletion (see
// nonBlocking).
func headless(placeholder *corev1.Service) *corev1.Service {
	meta := placeholder.ObjectMeta
	meta.OwnerReferences = nonBlocking(meta.OwnerReferences)
	return &corev1.Service{
		ObjectMeta: meta,
		Spec: corev1.ServiceSpec{
			Type:      corev1.ServiceTypeClusterIP,
			ClusterIP: corev1.ClusterIPNone,
			Ports:     placeholder.Spec.Ports,
		},
	}
}

// nonBlocking is refs without blockOwnerDeletion. With it set, kube-apiserver's
// OwnerReferencesPermissionEnforcement admission (enabled on OpenShift, for
// one) must map the owner's kind to check the writer may delete it, and for
// up to 30 s after kube-apiserver starts it cannot map a custom resource such
// as a Route: every create of an object owned by a Route is refused with
// "cannot find RESTMapping". Without it nothing changes but a foreground
// deletion of the Route, which no longer waits for these objects; they are
// garbage collected with it all the same.
func nonBlocking(refs []metav1.OwnerReference) []metav1.OwnerReference {
	out := make([]metav1.OwnerReference, len(refs))
	for i, r := range refs {
		r.BlockOwnerDeletion = nil
		out[i] = r
	}
	return out
}

// MaxEndpointsAddresses is the most addresses an Endpoints of ours holds:
// what kube-controller-manager's endpoints controller keeps in one (it
// truncates the rest and annotates the Endpoints OverCapacityAnnotation),
// and what its mirroring controller copies into EndpointSlices.
const MaxEndpointsAddresses = 1000

// OverCapacityAnnotation marks an Endpoints that holds only the first
// MaxEndpointsAddresses addresses, with the value "truncated", as
// kube-controller-manager's endpoints controller marks its own.
const OverCapacityAnnotation = corev1.EndpointsOverCapacity

// makeEndpoints is the route reconciler's Endpoints for an IP load balancer, with
// the addresses (the first MaxEndpointsAddresses of them, annotated
// OverCapacityAnnotation when there are more), the resolved port, our mark
// (names.MarkLabel) and, when our own slices exist too, the label that
// keeps the mirroring controller from copying it. ips are the addresses'
// strings.
func makeEndpoints(svc *corev1.Service, ips []string, port int32, skipMirror bool) *corev1.Endpoints {
	meta := svc.ObjectMeta
	mark := map[string]string{names.MarkLabel: names.ManagedBy}
	if skipMirror {
		mark[discoveryv1.LabelSkipMirror] = "true"
	}
	meta.Labels = kmap.Union(svc.Labels, mark)
	if len(ips) > MaxEndpointsAddresses {
		ips = ips[:MaxEndpointsAddresses]
		meta.Annotations = kmap.Union(svc.Annotations, map[string]string{OverCapacityAnnotation: "truncated"})
	}
	addresses := make([]corev1.EndpointAddress, len(ips))
	for i, ip := range ips {
		addresses[i].IP = ip
	}
	return &corev1.Endpoints{
		ObjectMeta: meta,
		Subsets: []corev1.EndpointSubset{{
			Addresses: addresses,
			Ports: []corev1.EndpointPort{{
				Name:        netapi.ServicePortNameH2C,
				AppProtocol: ptr.To(netapi.AppProtocolH2C),
				Port:        port,
			}},
		}},
	}
}

// makeSlices makes one ready EndpointSlice per address family that addrs
// hold, IPv4 first. addrs are sorted (IPv4 before IPv6) and ips are their
// strings.
func makeSlices(svc *corev1.Service, addrs []netip.Addr, ips []string, port int32) []*discoveryv1.EndpointSlice {
	split := sort.Search(len(addrs), func(i int) bool { return !addrs[i].Is4() })
	var out []*discoveryv1.EndpointSlice
	for _, fam := range []struct {
		t   discoveryv1.AddressType
		ips []string
	}{{discoveryv1.AddressTypeIPv4, ips[:split]}, {discoveryv1.AddressTypeIPv6, ips[split:]}} {
		if len(fam.ips) == 0 {
			continue
		}
		endpoints := make([]discoveryv1.Endpoint, len(fam.ips))
		for i, ip := range fam.ips {
			endpoints[i] = discoveryv1.Endpoint{
				Addresses:  []string{ip},
				Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
			}
		}
		out = append(out, &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{
				Name:      names.EndpointSlice(svc.Name, fam.t),
				Namespace: svc.Namespace,
				Labels: kmap.Union(svc.Labels, map[string]string{
					discoveryv1.LabelServiceName: svc.Name,
					discoveryv1.LabelManagedBy:   names.ManagedBy,
				}),
				// The planner binds the Service's UID.
				OwnerReferences: []metav1.OwnerReference{names.ServiceOwner(svc.Name)},
			},
			AddressType: fam.t,
			Endpoints:   endpoints,
			Ports: []discoveryv1.EndpointPort{{
				Name:        ptr.To(netapi.ServicePortNameH2C),
				Port:        ptr.To(port),
				Protocol:    ptr.To(corev1.ProtocolTCP),
				AppProtocol: ptr.To(netapi.AppProtocolH2C),
			}},
		})
	}
	return out
}
