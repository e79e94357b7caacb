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

package plan

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// Make plans the operations that turn in.Actual into in.Targets for the
// Route in.Owner.
func Make(in Input) Plan {
	p := planner{owner: in.Owner, released: in.Released}
	p.index(in.Actual)
	targets := in.Targets

	sorted := make([]*Target, len(targets))
	for i := range targets {
		sorted[i] = &targets[i]
	}
	slices.SortFunc(sorted, func(a, b *Target) int { return cmp.Compare(a.Name, b.Name) })

	for _, t := range sorted {
		if p.released {
			p.release(t)
		} else {
			p.target(t)
		}
	}
	p.orphans(sorted)

	ops := make([]Op, 0, len(p.prepareOps)+len(p.serviceOps)+len(p.afterOps)+len(p.cleanupOps))
	ops = append(ops, p.prepareOps...)
	ops = append(ops, p.serviceOps...)
	ops = append(ops, p.afterOps...)
	ops = append(ops, p.cleanupOps...)
	if len(ops) == 0 {
		ops = nil
	}
	return Plan{Ops: ops, Blocked: p.blocked, Kept: p.kept}
}

type planner struct {
	owner    metav1.Object
	released bool

	// The actual objects. A Route has a handful, so they are searched
	// rather than indexed; of two with one name, the later counts.
	services  []*corev1.Service
	endpoints []*corev1.Endpoints
	// slices are ours, sorted by the name of the Service they serve, then
	// by name.
	slices []*discoveryv1.EndpointSlice

	// The phases, in the order they are sent:
	// prepare: endpoints for Services that stay (before ExternalName turns headless);
	// services: Service deletes, creates and updates, then orphan deletes;
	// after: endpoints for Services that were just created or recreated;
	// cleanup: obsolete endpoints, then orphans.
	prepareOps, serviceOps, afterOps, cleanupOps []Op
	blocked                                      []Blocked
	kept                                         []string
}

func (p *planner) index(a Actual) {
	p.services, p.endpoints = a.Services, a.Endpoints
	for _, s := range a.Slices {
		if s.Labels[discoveryv1.LabelManagedBy] == names.ManagedBy {
			p.slices = append(p.slices, s)
		}
	}
	slices.SortFunc(p.slices, func(a, b *discoveryv1.EndpointSlice) int {
		return cmp.Or(cmp.Compare(a.Labels[discoveryv1.LabelServiceName], b.Labels[discoveryv1.LabelServiceName]), cmp.Compare(a.Name, b.Name))
	})
}

func (p *planner) service(name string) *corev1.Service {
	for i := len(p.services) - 1; i >= 0; i-- {
		if p.services[i].Name == name {
			return p.services[i]
		}
	}
	return nil
}

func (p *planner) endpointsOf(name string) *corev1.Endpoints {
	for i := len(p.endpoints) - 1; i >= 0; i-- {
		if p.endpoints[i].Name == name {
			return p.endpoints[i]
		}
	}
	return nil
}

// slicesOf returns our slices of the Service name, sorted by name.
func (p *planner) slicesOf(name string) []*discoveryv1.EndpointSlice {
	start := slices.IndexFunc(p.slices, func(s *discoveryv1.EndpointSlice) bool { return s.Labels[discoveryv1.LabelServiceName] == name })
	if start < 0 {
		return nil
	}
	end := start + 1
	for end < len(p.slices) && p.slices[end].Labels[discoveryv1.LabelServiceName] == name {
		end++
	}
	return p.slices[start:end:end]
}

func (p *planner) controlled(o metav1.Object) bool {
	return metav1.IsControlledBy(o, p.owner)
}

// target plans one name in a mode where we own the Service.
func (p *planner) target(t *Target) {
	svc, ep, ss := p.service(t.Name), p.endpointsOf(t.Name), p.slicesOf(t.Name)

	// Anything with this name that the Route does not control blocks the
	// whole name: writing around it would serve addresses through, or next
	// to, somebody else's object.
	blocked := false
	if svc != nil && !p.controlled(svc) {
		p.block(KindService, svc.Name)
		blocked = true
		// Endpoints and slices of ours under this name would add addresses
		// to somebody else's Service: they go.
		if ep != nil && p.controlled(ep) {
			p.cleanupOps = append(p.cleanupOps, Op{Verb: Delete, Kind: KindEndpoints, Object: ep, Reason: "the Service is not the Route's"})
		}
		for _, s := range ss {
			if p.controlled(s) {
				p.cleanupOps = append(p.cleanupOps, Op{Verb: Delete, Kind: KindEndpointSlice, Object: s, Reason: "the Service is not the Route's"})
			}
		}
	}
	if ep != nil && !p.controlled(ep) {
		p.block(KindEndpoints, ep.Name)
		blocked = true
	}
	for _, s := range ss {
		if !p.controlled(s) {
			p.block(KindEndpointSlice, s.Name)
			blocked = true
		}
	}
	if blocked {
		return
	}

	if t.Keep {
		// No load balancer: the name keeps what it has; a missing Service
		// comes back (headless, with its last endpoints, if any).
		if svc == nil {
			p.serviceOps = append(p.serviceOps, Op{Verb: Create, Kind: KindService, Object: t.Service, Reason: "missing"})
		} else if servesAddresses(ep, ss) {
			p.kept = append(p.kept, t.Name)
		}
		return
	}

	// Service. Endpoints go before a Service that stays (so an ExternalName
	// Service turns headless with its addresses already there), after one
	// that is created or recreated.
	endpointsPhase := &p.prepareOps
	switch {
	case svc == nil:
		p.serviceOps = append(p.serviceOps, Op{Verb: Create, Kind: KindService, Object: t.Service, Reason: "missing"})
		endpointsPhase = &p.afterOps
	default:
		switch change, reason := diffService(t.Service, svc); change {
		case recreate:
			p.serviceOps = append(p.serviceOps,
				Op{Verb: Delete, Kind: KindService, Object: svc, Reason: reason},
				Op{Verb: Create, Kind: KindService, Object: t.Service, Reason: reason})
			endpointsPhase = &p.afterOps
		case update:
			p.serviceOps = append(p.serviceOps, Op{Verb: Update, Kind: KindService, Object: updatedService(t.Service, svc), Reason: reason})
		}
	}

	// Endpoints.
	switch {
	case t.Endpoints == nil && ep != nil:
		p.cleanupOps = append(p.cleanupOps, Op{Verb: Delete, Kind: KindEndpoints, Object: ep, Reason: "not desired"})
	case t.Endpoints != nil && ep == nil:
		*endpointsPhase = append(*endpointsPhase, Op{Verb: Create, Kind: KindEndpoints, Object: t.Endpoints, Reason: "missing"})
	case t.Endpoints != nil && !endpointsEqual(t.Endpoints, ep):
		*endpointsPhase = append(*endpointsPhase, Op{Verb: Update, Kind: KindEndpoints, Object: updatedEndpoints(t.Endpoints, ep), Reason: "differs"})
	}

	// EndpointSlices, matched by name.
	for _, want := range t.Slices {
		have := findSlice(ss, want.Name)
		switch {
		case have == nil:
			*endpointsPhase = append(*endpointsPhase, Op{Verb: Create, Kind: KindEndpointSlice, Object: want, Reason: "missing"})
		case have.AddressType != want.AddressType:
			// addressType is immutable.
			*endpointsPhase = append(*endpointsPhase,
				Op{Verb: Delete, Kind: KindEndpointSlice, Object: have, Reason: "addressType changed"},
				Op{Verb: Create, Kind: KindEndpointSlice, Object: want, Reason: "addressType changed"})
		case !sliceEqual(want, have):
			*endpointsPhase = append(*endpointsPhase, Op{Verb: Update, Kind: KindEndpointSlice, Object: updatedSlice(want, have), Reason: "differs"})
		}
	}
	for _, have := range ss {
		if findSlice(t.Slices, have.Name) == nil {
			p.cleanupOps = append(p.cleanupOps, Op{Verb: Delete, Kind: KindEndpointSlice, Object: have, Reason: "not desired"})
		}
	}
}

// release plans one name whose Service the upstream route reconciler owns
// again. The marks come off an Endpoints upstream keeps; our EndpointSlices
// (and our Endpoints that upstream does not want) go once upstream has
// reshaped the Service, so that the name never stops resolving. While
// upstream has no shape for the Service it never reshapes it, so a
// headless Service of ours is deleted (and upstream creates its own
// placeholder) when it serves no addresses, or when upstream refuses the
// load balancer outright; when the load balancer is merely gone, it keeps
// its last addresses until upstream takes over.
func (p *planner) release(t *Target) {
	svc, ep := p.service(t.Name), p.endpointsOf(t.Name)
	if svc != nil && !p.controlled(svc) {
		return
	}
	if ep != nil && !p.controlled(ep) {
		ep = nil
	}
	var ss []*discoveryv1.EndpointSlice
	for _, s := range p.slicesOf(t.Name) {
		if p.controlled(s) {
			ss = append(ss, s)
		}
	}
	ours := ep != nil && oursEndpoints(ep)
	up := t.Upstream
	headless := svc != nil && svc.Spec.Type != corev1.ServiceTypeExternalName && svc.Spec.ClusterIP == corev1.ClusterIPNone

	if headless && !up.Ready && (ep == nil || ours) && (up.Refused || !servesAddresses(ep, ss)) {
		reason := "released to upstream: placeholder"
		if up.Refused {
			reason = "released to upstream, which refuses the load balancer"
		}
		p.serviceOps = append(p.serviceOps, Op{Verb: Delete, Kind: KindService, Object: svc, Reason: reason})
		headless = false
	}
	handedOver := !headless || (up.Endpoints && ep != nil && !ours)

	if ours {
		if up.Endpoints {
			p.prepareOps = append(p.prepareOps, Op{Verb: Update, Kind: KindEndpoints, Object: withoutMarks(ep), Reason: "released to upstream"})
		} else if handedOver {
			p.cleanupOps = append(p.cleanupOps, Op{Verb: Delete, Kind: KindEndpoints, Object: ep, Reason: "released to upstream"})
		}
	}
	if !handedOver {
		return
	}
	for _, s := range ss {
		p.cleanupOps = append(p.cleanupOps, Op{Verb: Delete, Kind: KindEndpointSlice, Object: s, Reason: "released to upstream"})
	}
}

// oursEndpoints reports whether an Endpoints was written by this project
// rather than by upstream.
func oursEndpoints(ep *corev1.Endpoints) bool {
	return ep.Labels[names.MarkLabel] != "" || ep.Labels[discoveryv1.LabelSkipMirror] != ""
}

// servesAddresses reports whether the Endpoints or any of the slices hold
// an address.
func servesAddresses(ep *corev1.Endpoints, ss []*discoveryv1.EndpointSlice) bool {
	if ep != nil {
		for _, sub := range ep.Subsets {
			if len(sub.Addresses)+len(sub.NotReadyAddresses) > 0 {
				return true
			}
		}
	}
	for _, s := range ss {
		if len(s.Endpoints) > 0 {
			return true
		}
	}
	return false
}

// orphans deletes what the Route controls under names it no longer wants.
// With every target released, orphan Services and Endpoints are upstream's
// to delete; our EndpointSlices are always ours.
func (p *planner) orphans(targets []*Target) {
	desired := func(name string) bool {
		return slices.ContainsFunc(targets, func(t *Target) bool { return t.Name == name })
	}
	managed := !p.released
	var svcs []*corev1.Service
	for _, s := range p.services {
		if !desired(s.Name) && p.controlled(s) && p.service(s.Name) == s {
			svcs = append(svcs, s)
		}
	}
	slices.SortFunc(svcs, func(a, b *corev1.Service) int { return cmp.Compare(a.Name, b.Name) })
	if managed {
		for _, s := range svcs {
			p.serviceOps = append(p.serviceOps, Op{Verb: Delete, Kind: KindService, Object: s, Reason: "orphan"})
		}
	}

	var eps []*corev1.Endpoints
	for _, e := range p.endpoints {
		if !desired(e.Name) && p.controlled(e) && p.endpointsOf(e.Name) == e &&
			(managed || oursEndpoints(e) && p.service(e.Name) == nil) {
			eps = append(eps, e)
		}
	}
	slices.SortFunc(eps, func(a, b *corev1.Endpoints) int { return cmp.Compare(a.Name, b.Name) })
	for _, e := range eps {
		p.cleanupOps = append(p.cleanupOps, Op{Verb: Delete, Kind: KindEndpoints, Object: e, Reason: "orphan"})
	}

	var ss []*discoveryv1.EndpointSlice
	for _, s := range p.slices {
		if !desired(s.Labels[discoveryv1.LabelServiceName]) && p.controlled(s) {
			ss = append(ss, s)
		}
	}
	slices.SortFunc(ss, func(a, b *discoveryv1.EndpointSlice) int { return cmp.Compare(a.Name, b.Name) })
	for _, s := range ss {
		p.cleanupOps = append(p.cleanupOps, Op{Verb: Delete, Kind: KindEndpointSlice, Object: s, Reason: "orphan"})
	}
}

func (p *planner) block(k Kind, name string) {
	p.blocked = append(p.blocked, Blocked{Kind: k, Name: name})
}

func findSlice(ss []*discoveryv1.EndpointSlice, name string) *discoveryv1.EndpointSlice {
	for _, s := range ss {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// TakeBack returns the operations that make have, a slice the Route
// controls that was not among the actual objects (its labels no longer
// select it), into want again: an update, or a replacement when its
// addressType differs.
func TakeBack(want, have *discoveryv1.EndpointSlice) []Op {
	if have.AddressType != want.AddressType {
		return []Op{
			{Verb: Delete, Kind: KindEndpointSlice, Object: have, Reason: "taken back: addressType changed"},
			{Verb: Create, Kind: KindEndpointSlice, Object: want, Reason: "taken back: addressType changed"},
		}
	}
	return []Op{{Verb: Update, Kind: KindEndpointSlice, Object: updatedSlice(want, have), Reason: "taken back"}}
}
