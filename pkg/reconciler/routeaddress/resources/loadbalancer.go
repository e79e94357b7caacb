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
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	corev1listers "k8s.io/client-go/listers/core/v1"

	netapi "knative.dev/networking/pkg/apis/networking"
	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	"knative.dev/pkg/network"
)

// Reason says why a load balancer entry gave no addresses.
type Reason string

const (
	// ReasonInvalidIP: the entry's IP does not parse.
	ReasonInvalidIP Reason = "InvalidIP"
	// ReasonExternalDomain: the entry has only a Domain, a name outside the
	// cluster.
	ReasonExternalDomain Reason = "ExternalDomain"
	// ReasonNotClusterService: DomainInternal is not of the form
	// <service>.<namespace>.svc.<cluster-domain>.
	ReasonNotClusterService Reason = "DomainNotClusterService"
	// ReasonServiceNotFound: DomainInternal names a Service that does not exist.
	ReasonServiceNotFound Reason = "ServiceNotFound"
	// ReasonServiceLookupFailed: the Service lister returned an error.
	ReasonServiceLookupFailed Reason = "ServiceLookupFailed"
	// ReasonServiceHeadless: DomainInternal names a headless Service.
	ReasonServiceHeadless Reason = "ServiceHeadless"
	// ReasonServiceExternalName: DomainInternal names an ExternalName Service.
	ReasonServiceExternalName Reason = "ServiceExternalName"
	// ReasonNoClusterIP: DomainInternal names a Service without cluster IPs.
	ReasonNoClusterIP Reason = "ServiceHasNoClusterIP"
	// ReasonNoPort: DomainInternal names a Service with neither port 80 nor
	// a port named http2 or http.
	ReasonNoPort Reason = "ServiceHasNoUsablePort"
	// ReasonPortMismatch: entries resolved to different ports; only the
	// first entry's port is used.
	ReasonPortMismatch Reason = "PortMismatch"
	// ReasonNoAddress: the entry has neither IP, DomainInternal, Domain nor
	// MeshOnly.
	ReasonNoAddress Reason = "NoAddress"
	// ReasonAddressNotAllowed: the address is one the apiserver refuses in
	// Endpoints and EndpointSlices (unspecified, loopback, link-local or
	// multicast); the entry is left out.
	ReasonAddressNotAllowed Reason = "AddressNotAllowed"
	// ReasonMappedAddress: an IPv4-mapped IPv6 address, used as the IPv4
	// address it maps.
	ReasonMappedAddress Reason = "IPv4MappedAddress"
)

// Problem is one load balancer entry that could not be turned into
// addresses.
type Problem struct {
	Reason  Reason
	Message string
}

func (p Problem) String() string { return string(p.Reason) + ": " + p.Message }

// Resolution is what a load balancer status resolved to.
type Resolution struct {
	// Addresses are the resolved IPs, sorted and without duplicates.
	Addresses []netip.Addr
	// Port is the port the addresses serve on.
	Port int32
	// MeshOnly is true when the first entry is MeshOnly and nothing
	// resolved to addresses.
	MeshOnly bool
	// Fallback is the entry an ExternalName Service would point at: the
	// first entry with a DomainInternal or Domain, reduced to those two
	// fields (the route reconciler prefers DomainInternal). Nil when there is none.
	Fallback *netv1alpha1.LoadBalancerIngressStatus
	// Problems lists the entries that gave no address.
	Problems []Problem
	// Referenced are the Services that DomainInternal entries named,
	// whether they exist or not; a change to any of them changes the result.
	Referenced []types.NamespacedName
}

// RouteReconcilerShape describes what the route reconciler makes of a Service
// whose addressing is handed back to it (ExternalName mode).
type RouteReconcilerShape struct {
	// Ready: the route reconciler has a shape for the Service and will rewrite it.
	Ready bool
	// Endpoints: the route reconciler keeps a core/v1 Endpoints (an IP load balancer).
	Endpoints bool
	// Refusal is why the route reconciler cannot make a Service of the load
	// balancer (its constructor's error), "" when it can.
	Refusal string
}

// LoadBalancer returns the load balancer status the route reconciler would use for a
// Service: the private one when it has entries or the Service is cluster
// local, else the public one. Nil when there is none yet.
func LoadBalancer(ing *netv1alpha1.Ingress, isPrivate bool) *netv1alpha1.LoadBalancerStatus {
	if ing == nil {
		return nil
	}
	lb := ing.Status.PublicLoadBalancer
	if private := ing.Status.PrivateLoadBalancer; isPrivate || private != nil && len(private.Ingress) != 0 {
		lb = private
	}
	if lb == nil || len(lb.Ingress) == 0 {
		return nil
	}
	return lb
}

// Resolver resolves load balancers with a Service lister. It remembers its
// last answer: a Route's names almost always share one load balancer, so
// one Resolver per reconcile resolves it once. The Resolutions it returns
// are shared and must not be modified.
type Resolver struct {
	services corev1listers.ServiceLister
	last     *netv1alpha1.LoadBalancerStatus
	res      Resolution
}

// NewResolver returns a Resolver that looks Services up in services.
func NewResolver(services corev1listers.ServiceLister) *Resolver {
	return &Resolver{services: services}
}

// Resolve is Resolve(lb, services), remembered for the same lb.
func (r *Resolver) Resolve(lb *netv1alpha1.LoadBalancerStatus) Resolution {
	if lb == nil {
		return Resolution{}
	}
	if lb != r.last {
		r.last, r.res = lb, Resolve(lb, r.services)
	}
	return r.res
}

// Resolve turns every entry of lb into addresses. Within one entry,
// the route reconciler's priority holds: IP, then DomainInternal (the ClusterIPs of the
// Service it names), then Domain (unresolvable), then MeshOnly.
func Resolve(lb *netv1alpha1.LoadBalancerStatus, services corev1listers.ServiceLister) Resolution {
	var r Resolution
	if lb == nil {
		return r
	}
	portSet := false
	for i := range lb.Ingress {
		e := &lb.Ingress[i]
		if r.Fallback == nil && (e.DomainInternal != "" || e.Domain != "") {
			// DNS names are case-insensitive; the apiserver takes an
			// externalName in lower case only.
			r.Fallback = &netv1alpha1.LoadBalancerIngressStatus{DomainInternal: strings.ToLower(e.DomainInternal), Domain: strings.ToLower(e.Domain)}
		}

		var (
			// addrs are appended to r.Addresses, and dropped again from
			// there if the entry is left out.
			addrs = r.Addresses
			port  int32
			prob  *Problem
		)
		if e.IP != "" {
			a, err := netip.ParseAddr(e.IP)
			if err != nil || a.Zone() != "" {
				prob = &Problem{ReasonInvalidIP, fmt.Sprintf("load balancer IP %q is not an IP address", e.IP)}
			} else {
				var note *Problem
				if a, prob, note = usable(a, "load balancer IP"); note != nil {
					r.Problems = append(r.Problems, *note)
				}
				if prob == nil {
					addrs, port = append(addrs, a), netapi.ServiceHTTPPort
				}
			}
		} else if e.DomainInternal != "" {
			var found []netip.Addr
			found, port, prob = r.resolveDomainInternal(e.DomainInternal, services)
			addrs = append(addrs, found...)
		} else if e.Domain != "" {
			prob = &Problem{ReasonExternalDomain, fmt.Sprintf("load balancer domain %q is outside the cluster", e.Domain)}
		} else if e.MeshOnly {
			if i == 0 {
				r.MeshOnly = true
			}
			continue
		} else {
			prob = &Problem{ReasonNoAddress, fmt.Sprintf("load balancer entry %d has no IP, DomainInternal, Domain or MeshOnly", i)}
		}
		if prob != nil {
			r.Problems = append(r.Problems, *prob)
			continue
		}
		if portSet && port != r.Port {
			r.Problems = append(r.Problems, Problem{
				ReasonPortMismatch,
				fmt.Sprintf("load balancer entry %d serves port %d, entry before it port %d; it is left out", i, port, r.Port),
			})
			continue
		}
		r.Port, portSet = port, true
		r.Addresses = addrs
	}
	if len(r.Addresses) > 0 {
		r.MeshOnly = false
		slices.SortFunc(r.Addresses, func(a, b netip.Addr) int { return a.Compare(b) })
		r.Addresses = slices.Compact(r.Addresses)
	}
	return r
}

// resolveDomainInternal resolves a DomainInternal that names a Service of
// this cluster (see splitServiceDomain) to that Service's ClusterIPs, and
// the port to use on them. The Service named, when the domain names one,
// is added to r.Referenced; addresses used after a rewrite are added to
// r.Problems as notes, unless the entry gives no address.
func (r *Resolution) resolveDomainInternal(domain string, services corev1listers.ServiceLister) ([]netip.Addr, int32, *Problem) {
	name, ns, ok := splitServiceDomain(domain)
	if !ok {
		cd := network.GetClusterDomainName()
		return nil, 0, &Problem{ReasonNotClusterService, fmt.Sprintf(
			"load balancer DomainInternal %q is not of the form <service>.<namespace>.svc.%s, <service>.<namespace>.svc or <service>.<namespace>", domain, cd)}
	}
	ref := types.NamespacedName{Namespace: ns, Name: name}
	r.Referenced = append(r.Referenced, ref)
	problem := func(reason Reason, format string, args ...any) ([]netip.Addr, int32, *Problem) {
		return nil, 0, &Problem{reason, fmt.Sprintf(format, args...)}
	}
	svc, err := services.Services(ns).Get(name)
	if err != nil {
		if apierrs.IsNotFound(err) {
			return problem(ReasonServiceNotFound, "Service %s named by load balancer DomainInternal %q does not exist", ref, domain)
		}
		return problem(ReasonServiceLookupFailed, "failed to get Service %s: %v", ref, err)
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return problem(ReasonServiceExternalName, "Service %s named by load balancer DomainInternal %q is of type ExternalName", ref, domain)
	}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return problem(ReasonServiceHeadless, "Service %s named by load balancer DomainInternal %q is headless", ref, domain)
	}
	ips := svc.Spec.ClusterIPs
	if len(ips) == 0 {
		// Only spec.clusterIP (an apiserver before dual stack, or a client
		// that does not fill clusterIPs); an empty one is no address.
		ips = []string{svc.Spec.ClusterIP}
	}
	var (
		found   []netip.Addr
		notes   []Problem
		refused *Problem
	)
	for _, ip := range ips {
		a, err := netip.ParseAddr(ip)
		if err != nil {
			continue
		}
		a, prob, note := usable(a, "cluster IP of Service "+ref.String())
		if note != nil {
			notes = append(notes, *note)
		}
		if prob != nil {
			refused = prob
			continue
		}
		found = append(found, a)
	}
	if len(found) == 0 {
		if refused != nil {
			return nil, 0, refused
		}
		return problem(ReasonNoClusterIP, "Service %s named by load balancer DomainInternal %q has no cluster IP", ref, domain)
	}
	port, ok := servicePort(svc)
	if !ok {
		return problem(ReasonNoPort, "Service %s named by load balancer DomainInternal %q has neither port %d nor a port named %q or %q",
			ref, domain, netapi.ServiceHTTPPort, netapi.ServicePortNameH2C, netapi.ServicePortNameHTTP1)
	}
	r.Problems = append(r.Problems, notes...)
	return found, port, nil
}

// usable returns a as endpoints may hold it: an IPv4-mapped IPv6 address
// becomes the IPv4 address it maps (note says so); an address the
// apiserver refuses in Endpoints and EndpointSlices (unspecified,
// loopback, link-local, multicast) is a problem. what names the address
// for messages.
func usable(a netip.Addr, what string) (_ netip.Addr, problem, note *Problem) {
	if a.Is4In6() {
		note = &Problem{ReasonMappedAddress, fmt.Sprintf("%s %s is an IPv4-mapped IPv6 address; it is used as %s", what, a, a.Unmap())}
		a = a.Unmap()
	}
	var kind string
	if a.IsUnspecified() {
		kind = "unspecified"
	} else if a.IsLoopback() {
		kind = "a loopback address"
	} else if a.IsLinkLocalUnicast() {
		kind = "a link-local address"
	} else if a.IsMulticast() {
		kind = "a multicast address"
	} else {
		return a, nil, note
	}
	return a, &Problem{ReasonAddressNotAllowed, fmt.Sprintf(
		"%s %s is %s, which Endpoints and EndpointSlices may not hold; it is left out", what, a, kind)}, nil
}

// servicePort picks the TCP port 80, else the TCP port named http2, else
// the one named http.
func servicePort(svc *corev1.Service) (int32, bool) {
	var h2c, http1 *corev1.ServicePort
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
			continue
		}
		if p.Port == netapi.ServiceHTTPPort {
			return p.Port, true
		}
		switch p.Name {
		case netapi.ServicePortNameH2C:
			h2c = p
		case netapi.ServicePortNameHTTP1:
			http1 = p
		}
	}
	if h2c != nil {
		return h2c.Port, true
	}
	if http1 != nil {
		return http1.Port, true
	}
	return 0, false
}

// splitServiceDomain splits a DNS name of a Service of this cluster, in
// any case and with or without a trailing dot, in the forms a resolver in
// the cluster finds: <service>.<namespace>.svc.<cluster-domain>,
// <service>.<namespace>.svc and <service>.<namespace>. Service and
// namespace must be DNS labels; they are returned in lower case.
func splitServiceDomain(domain string) (name, namespace string, ok bool) {
	d := strings.ToLower(strings.TrimSuffix(domain, "."))
	rest, found := strings.CutSuffix(d, ".svc."+strings.ToLower(network.GetClusterDomainName()))
	if !found {
		rest, found = strings.CutSuffix(d, ".svc")
	}
	if !found || strings.Count(rest, ".") != 1 {
		rest = d
	}
	name, namespace, found = strings.Cut(rest, ".")
	if !found || len(validation.IsDNS1123Label(name)) > 0 || len(validation.IsDNS1123Label(namespace)) > 0 {
		return "", "", false
	}
	return name, namespace, true
}
