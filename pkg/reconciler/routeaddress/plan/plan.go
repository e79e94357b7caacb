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
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// Make plans the operations that turn in.Actual into in.Targets for the
// Route in.Owner.
func Make(in Input) Plan {
	p := planner{owner: in.Owner, externalName: in.ExternalNameMode}
	p.index(in.Actual)
	targets := in.Targets

	sorted := make([]*resources.Addressing, len(targets))
	for i := range targets {
		sorted[i] = &targets[i]
	}
	slices.SortFunc(sorted, func(a, b *resources.Addressing) int { return cmp.Compare(a.Name, b.Name) })

	for _, t := range sorted {
		if p.externalName {
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
	out := Plan{Ops: ops, Blocked: p.blocked, NoLoadBalancer: p.noLoadBalancer, Waiting: p.waiting}
	if in.HoldExisting {
		out = hold(out, in.Actual)
	}
	return out
}

// hold leaves out of p the operations on the names that have a Service in
// a, and those names from p.Waiting; Held lists them.
func hold(p Plan, a Actual) Plan {
	exists := make(map[string]bool, len(a.Services))
	for _, s := range a.Services {
		exists[s.Name] = true
	}
	var ops []Op
	held := map[string]bool{}
	for _, op := range p.Ops {
		if exists[op.Service()] {
			held[op.Service()] = true
			continue
		}
		ops = append(ops, op)
	}
	for _, name := range p.Waiting {
		held[name] = true
	}
	p.Ops = ops
	p.Waiting = slices.DeleteFunc(p.Waiting, func(name string) bool { return exists[name] })
	for name := range held {
		if exists[name] {
			p.Held = append(p.Held, name)
		}
	}
	slices.Sort(p.Held)
	return p
}

type planner struct {
	owner        metav1.Object
	externalName bool

	// The actual objects. A Route has a handful, so they are searched
	// rather than indexed; of two with one name, the later counts.
	services  []*corev1.Service
	endpoints []*corev1.Endpoints
	// slices are ours, sorted by the name of the Service they serve, then
	// by name.
	slices []*discoveryv1.EndpointSlice
	// mirrored are the slices kube-controller-manager mirrors from
	// Endpoints.
	mirrored []*discoveryv1.EndpointSlice

	// The phases, in the order they are sent:
	// prepare: endpoints for Services that stay (before ExternalName turns headless);
	// services: Service deletes, creates and updates, then orphan deletes;
	// after: endpoints for Services that were just created or recreated;
	// cleanup: obsolete endpoints, then orphans.
	prepareOps, serviceOps, afterOps, cleanupOps []Op
	blocked                                      []Blocked
	noLoadBalancer, waiting                      []string
}

func (p *planner) index(a Actual) {
	p.services, p.endpoints = a.Services, a.Endpoints
	for _, s := range a.Slices {
		switch s.Labels[discoveryv1.LabelManagedBy] {
		case names.ManagedBy:
			p.slices = append(p.slices, s)
		case names.MirroredBy:
			p.mirrored = append(p.mirrored, s)
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

// sliceOwnership says who controls one of our EndpointSlices.
type sliceOwnership int

const (
	// ownerService: the live Service it serves (as Kubernetes' own
	// controllers own slices), which the Route controls.
	ownerService sliceOwnership = iota
	// ownerDeleted: a Service of the name it serves that no longer exists
	// (deleted, or replaced by one with another UID); garbage collection
	// deletes it.
	ownerDeleted
	// ownerClaimed: no controller, or one other than a Service of the name
	// it serves, while that Service is the Route's or missing:
	// the slice claims this controller's managed-by value for a name the
	// Route addresses, so it is handled as ours (the EndpointSlice
	// controller does the same with slices that carry its value): taken
	// over under a name the Route wants, deleted under any other.
	ownerClaimed
	// ownerOther: the Service it serves is somebody else's; never written.
	ownerOther
)

// sliceOwner classifies s, one of our slices of the Service svc (nil when
// there is none).
func (p *planner) sliceOwner(s *discoveryv1.EndpointSlice, svc *corev1.Service) sliceOwnership {
	ref := metav1.GetControllerOfNoCopy(s)
	ofService := ref != nil && ref.Kind == "Service" && ref.APIVersion == "v1" && ref.Name == s.Labels[discoveryv1.LabelServiceName]
	if ofService && (svc == nil || ref.UID != svc.UID) {
		return ownerDeleted
	}
	if svc != nil && !p.controlled(svc) {
		return ownerOther
	}
	if !ofService {
		return ownerClaimed
	}
	return ownerService
}

// OursSlice reports whether s, an EndpointSlice of the Service service, is
// controlled by a Service of that name (whose UID the caller may not know).
func OursSlice(s *discoveryv1.EndpointSlice, service string) bool {
	ref := metav1.GetControllerOfNoCopy(s)
	return ref != nil && ref.Kind == "Service" && ref.APIVersion == "v1" && ref.Name == service
}

// keptSlice is a new slice with have's name, labels and endpoints,
// controlled by the Service it serves (its UID to be bound).
func keptSlice(have *discoveryv1.EndpointSlice) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name:            have.Name,
			Namespace:       have.Namespace,
			Labels:          have.Labels,
			Annotations:     have.Annotations,
			OwnerReferences: []metav1.OwnerReference{names.ServiceOwner(have.Labels[discoveryv1.LabelServiceName])},
		},
		AddressType: have.AddressType,
		Endpoints:   have.Endpoints,
		Ports:       have.Ports,
	}
}

// withOwnerUID returns want controlled by its Service of UID uid; want
// itself when uid is empty (the executor binds it).
func withOwnerUID(want *discoveryv1.EndpointSlice, uid types.UID) *discoveryv1.EndpointSlice {
	if uid == "" {
		return want
	}
	out := *want
	out.OwnerReferences = OwnerUID(want.OwnerReferences, uid)
	return &out
}

// OwnerUID returns refs with the UID of its controller reference (the
// Service) set to uid.
func OwnerUID(refs []metav1.OwnerReference, uid types.UID) []metav1.OwnerReference {
	out := make([]metav1.OwnerReference, len(refs))
	copy(out, refs)
	for i := range out {
		if out[i].Controller != nil && *out[i].Controller {
			out[i].UID = uid
		}
	}
	return out
}

// target plans one name in a mode where we own the Service: nothing if
// somebody else's object holds the name; what it has if there is no load
// balancer; else its Service, then its slices and Endpoints, in the phase
// the Service's change puts them in.
func (p *planner) target(t *resources.Addressing) {
	svc, ep, ss := p.service(t.Name), p.endpointsOf(t.Name), p.slicesOf(t.Name)
	if p.blockedBy(svc, ep, ss) {
		return
	}
	if t.NoLoadBalancer {
		p.keep(t, svc, ep, ss)
		return
	}
	// A name in Endpoints mode answers through the slice kube-controller-
	// manager mirrors from its Endpoints, some time after they are
	// written: until that slice serves the addresses, an ExternalName
	// Service is not turned headless and our slices are not deleted.
	wait := len(t.Slices) == 0 && headlessService(t.Service) && t.Endpoints != nil && !p.mirrorServes(t.Endpoints)
	ph := p.targetService(t, svc, wait)
	p.targetSlices(t, svc, ss, ph, wait)
	p.targetEndpoints(t, ep, ph)
}

// endpointsPhase is when a name's Endpoints and slices are written,
// relative to its Service.
type endpointsPhase int

const (
	// beforeService: the Service stays; they go first (prepareOps), so
	// that an ExternalName Service turns headless with its addresses
	// already there.
	beforeService endpointsPhase = iota
	// afterService: the Service is created or recreated; they follow it
	// (afterOps), controlled by the new Service.
	afterService
)

// ops is the list of operations of phase ph.
func (p *planner) ops(ph endpointsPhase) *[]Op {
	if ph == afterService {
		return &p.afterOps
	}
	return &p.prepareOps
}

// blockedBy blocks the name when anything under it that the Route does not
// control holds it: writing around it would serve addresses through, or
// next to, somebody else's object. Endpoints and slices of ours under
// somebody else's Service go.
func (p *planner) blockedBy(svc *corev1.Service, ep *corev1.Endpoints, ss []*discoveryv1.EndpointSlice) bool {
	blocked := false
	if svc != nil && !p.controlled(svc) {
		p.block(KindService, svc.Name)
		blocked = true
		if ep != nil && p.controlled(ep) {
			p.cleanupOps = append(p.cleanupOps, Op{Verb: Delete, Kind: KindEndpoints, Object: ep, Reason: "the Service is not the Route's"})
		}
		for _, s := range ss {
			if p.sliceOwner(s, svc) == ownerDeleted {
				p.cleanupOps = append(p.cleanupOps, Op{Verb: Delete, Kind: KindEndpointSlice, Object: s, Reason: "the Service is not the Route's"})
			}
		}
	}
	if ep != nil && !p.controlled(ep) {
		p.block(KindEndpoints, ep.Name)
		blocked = true
	}
	for _, s := range ss {
		if p.sliceOwner(s, svc) == ownerOther {
			p.block(KindEndpointSlice, s.Name)
			blocked = true
		}
	}
	return blocked
}

// keep plans a name without a load balancer: it keeps what it has; a
// missing Service comes back (headless, with its last endpoints, if any).
// Slices of the deleted Service are garbage collected: they are made
// again, from what they held, for the new one.
func (p *planner) keep(t *resources.Addressing, svc *corev1.Service, ep *corev1.Endpoints, ss []*discoveryv1.EndpointSlice) {
	if svc == nil {
		p.serviceOps = append(p.serviceOps, Op{Verb: Create, Kind: KindService, Object: t.Service, Reason: "missing"})
		for _, have := range ss {
			p.afterOps = append(p.afterOps, replaceSlice(have, keptSlice(have), "its Service was replaced")...)
		}
	} else if servesAddresses(ep, ss) {
		p.noLoadBalancer = append(p.noLoadBalancer, t.Name)
	}
}

// targetService plans the name's Service and returns the phase of its
// Endpoints and slices. An ExternalName Service that must wait for the
// mirrored slice (wait) is not turned headless yet.
func (p *planner) targetService(t *resources.Addressing, svc *corev1.Service, wait bool) endpointsPhase {
	if svc == nil {
		p.serviceOps = append(p.serviceOps, Op{Verb: Create, Kind: KindService, Object: t.Service, Reason: "missing"})
		return afterService
	}
	switch change, reason := diffService(t.Service, svc); change {
	case recreate:
		p.serviceOps = append(p.serviceOps,
			Op{Verb: Delete, Kind: KindService, Object: svc, Reason: reason},
			Op{Verb: Create, Kind: KindService, Object: t.Service, Reason: reason})
		return afterService
	case update:
		if wait && svc.Spec.Type == corev1.ServiceTypeExternalName {
			p.waiting = append(p.waiting, t.Name)
		} else {
			p.serviceOps = append(p.serviceOps, Op{Verb: Update, Kind: KindService, Object: updatedService(t.Service, svc), Reason: reason})
		}
	}
	return beforeService
}

// targetSlices plans the name's EndpointSlices, matched by name and
// controlled by their Service, in phase ph, before its Endpoints: an
// Endpoints that gets the skip-mirror label loses its mirrored slice, and
// ours must be there by then. The Service's UID is known when it stays;
// the executor fills it in (BindOwner) when the plan creates the Service.
// Slices no longer wanted go, unless the name waits for its mirrored
// slice (wait) while its Service stays.
func (p *planner) targetSlices(t *resources.Addressing, svc *corev1.Service, ss []*discoveryv1.EndpointSlice, ph endpointsPhase, wait bool) {
	var uid types.UID
	if ph == beforeService {
		uid = svc.UID
	}
	recreated := ph == afterService
	//series:large
	wantSlices := split(t.Slices, ss)
	//series:else
	// wantSlices := t.Slices
	//series:end
	for _, want := range wantSlices {
		*p.ops(ph) = append(*p.ops(ph), p.sliceOps(want, findSlice(ss, want.Name), svc, uid, recreated)...)
	}
	waitSlices := false
	for _, have := range ss {
		if findSlice(wantSlices, have.Name) != nil {
			continue
		}
		if wait && !recreated {
			waitSlices = true
			continue
		}
		p.cleanupOps = append(p.cleanupOps, Op{Verb: Delete, Kind: KindEndpointSlice, Object: have, Reason: "not desired"})
	}
	if waitSlices && !slices.Contains(p.waiting, t.Name) {
		p.waiting = append(p.waiting, t.Name)
	}
}

// targetEndpoints plans the name's Endpoints in phase ph; unwanted ones go
// with the cleanup.
func (p *planner) targetEndpoints(t *resources.Addressing, ep *corev1.Endpoints, ph endpointsPhase) {
	if t.Endpoints == nil && ep != nil {
		p.cleanupOps = append(p.cleanupOps, Op{Verb: Delete, Kind: KindEndpoints, Object: ep, Reason: "not desired"})
	} else if t.Endpoints != nil && ep == nil {
		*p.ops(ph) = append(*p.ops(ph), Op{Verb: Create, Kind: KindEndpoints, Object: t.Endpoints, Reason: "missing"})
	} else if t.Endpoints != nil && !endpointsEqual(t.Endpoints, ep) {
		*p.ops(ph) = append(*p.ops(ph), Op{Verb: Update, Kind: KindEndpoints, Object: updatedEndpoints(t.Endpoints, ep), Reason: "differs"})
	}
}

// headlessService reports whether svc is a headless Service: its name answers
// with the addresses of its endpoints.
func headlessService(svc *corev1.Service) bool {
	return resources.ShapeOf(svc) == resources.ServiceHeadless
}

// mirrorServes reports whether the slices mirrored from the Endpoints of
// ep's name hold every ready address ep holds (true when it holds none:
// then there is nothing to wait for).
func (p *planner) mirrorServes(ep *corev1.Endpoints) bool {
	have := sets.New[string]()
	for _, s := range p.mirrored {
		if s.Labels[discoveryv1.LabelServiceName] != ep.Name {
			continue
		}
		for _, e := range s.Endpoints {
			if ptr.Deref(e.Conditions.Ready, true) {
				have.Insert(e.Addresses...)
			}
		}
	}
	for _, sub := range ep.Subsets {
		for _, a := range sub.Addresses {
			if !have.Has(a.IP) {
				return false
			}
		}
	}
	return true
}

// sliceOps plans one desired slice against the live one of its name (nil
// for none). recreated is true when the plan creates or recreates its
// Service; uid is the Service's UID when it stays.
func (p *planner) sliceOps(want, have *discoveryv1.EndpointSlice, svc *corev1.Service, uid types.UID, recreated bool) []Op {
	if have == nil {
		return []Op{{Verb: Create, Kind: KindEndpointSlice, Object: withOwnerUID(want, uid), Reason: "missing"}}
	}
	owner := p.sliceOwner(have, svc)
	if owner == ownerDeleted {
		// Owned by a Service of this name that is gone: garbage collection
		// deletes it; it is replaced, not counted.
		return replaceSlice(have, withOwnerUID(want, uid), "its Service was replaced")
	}
	if have.AddressType != want.AddressType {
		// addressType is immutable.
		return replaceSlice(have, withOwnerUID(want, uid), "addressType changed")
	}
	if owner == ownerClaimed {
		// Nothing deletes it with a Service: taken over in place, so that
		// the name never goes without the slice.
		return []Op{{Verb: Update, Kind: KindEndpointSlice, Object: updatedSlice(withOwnerUID(want, uid), have), Reason: "claims this controller's managed-by value"}}
	}
	if recreated {
		// A slice the old Service controlled is garbage collected with it.
		return replaceSlice(have, want, "its Service is recreated")
	}
	if !sliceEqual(want, have) {
		return []Op{{Verb: Update, Kind: KindEndpointSlice, Object: updatedSlice(withOwnerUID(want, uid), have), Reason: "differs"}}
	}
	return nil
}

// replaceSlice deletes have and creates want: addressType is immutable, and
// a slice controlled by a Service that is gone is garbage collected.
func replaceSlice(have, want *discoveryv1.EndpointSlice, reason string) []Op {
	return []Op{
		{Verb: Delete, Kind: KindEndpointSlice, Object: have, Reason: reason},
		{Verb: Create, Kind: KindEndpointSlice, Object: want, Reason: reason},
	}
}

// release plans one name whose Service the route reconciler owns
// again. The marks come off an Endpoints the route reconciler keeps; our EndpointSlices
// (and our Endpoints that the route reconciler does not want) go once the route reconciler has
// reshaped the Service, so that the name never stops resolving. While
// the route reconciler has no shape for the Service it never reshapes it, so a
// headless Service of ours is deleted (and the route reconciler creates its own
// placeholder) when it serves no addresses, or when the route reconciler refuses the
// load balancer outright; when the load balancer is merely gone, it keeps
// its last addresses until the route reconciler takes over.
func (p *planner) release(t *resources.Addressing) {
	svc, ep := p.service(t.Name), p.endpointsOf(t.Name)
	if svc != nil && !p.controlled(svc) {
		return
	}
	if ep != nil && !p.controlled(ep) {
		ep = nil
	}
	var ss []*discoveryv1.EndpointSlice
	for _, s := range p.slicesOf(t.Name) {
		if p.sliceOwner(s, svc) != ownerOther {
			ss = append(ss, s)
		}
	}
	ours := ep != nil && oursEndpoints(ep)
	up := t.RouteReconciler
	headless := headlessService(svc)

	if headless && !up.Ready && (ep == nil || ours) && (up.Refusal != "" || !servesAddresses(ep, ss)) {
		reason := "released to the route reconciler: placeholder"
		if up.Refusal != "" {
			reason = "released to the route reconciler, which refuses the load balancer: " + up.Refusal
		}
		p.serviceOps = append(p.serviceOps, Op{Verb: Delete, Kind: KindService, Object: svc, Reason: reason})
		headless = false
	}
	routeReconcilerOwns := !headless || (up.Endpoints && ep != nil && !ours)

	if ours {
		if up.Endpoints {
			p.prepareOps = append(p.prepareOps, Op{Verb: Update, Kind: KindEndpoints, Object: withoutMarks(ep), Reason: "released to the route reconciler"})
		} else if routeReconcilerOwns {
			p.cleanupOps = append(p.cleanupOps, Op{Verb: Delete, Kind: KindEndpoints, Object: ep, Reason: "released to the route reconciler"})
		}
	}
	if !routeReconcilerOwns {
		return
	}
	if len(ss) > 0 && headless && ep != nil && !p.mirrorServes(ep) {
		// The route reconciler's Endpoints answer once they are mirrored.
		p.waiting = append(p.waiting, t.Name)
		return
	}
	for _, s := range ss {
		p.cleanupOps = append(p.cleanupOps, Op{Verb: Delete, Kind: KindEndpointSlice, Object: s, Reason: "released to the route reconciler"})
	}
}

// oursEndpoints reports whether an Endpoints was written by routeaddress
// rather than by the route reconciler.
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
// In ExternalName mode, orphan Services and Endpoints are the route reconciler's
// to delete; our EndpointSlices are always ours.
func (p *planner) orphans(targets []*resources.Addressing) {
	desired := func(name string) bool {
		return slices.ContainsFunc(targets, func(t *resources.Addressing) bool { return t.Name == name })
	}
	managed := !p.externalName
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
		if n := s.Labels[discoveryv1.LabelServiceName]; !desired(n) && p.sliceOwner(s, p.service(n)) != ownerOther {
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

// RestoreLabels returns the operations that make have, a slice the Route
// controls that was not among the actual objects (its labels no longer
// select it), into want again: an update, or a replacement when its
// addressType differs.
func RestoreLabels(want, have *discoveryv1.EndpointSlice) []Op {
	if have.AddressType != want.AddressType {
		return replaceSlice(have, want, "taken back: addressType changed")
	}
	return []Op{{Verb: Update, Kind: KindEndpointSlice, Object: updatedSlice(want, have), Reason: "taken back"}}
}

// BindOwner sets the UID of the Service that controls the EndpointSlice op
// writes where the plan could not know it because the Service is created by
// the same plan: created maps the names of the Services created so far to
// their UIDs.
func BindOwner(op Op, created map[string]types.UID) (Op, error) {
	s, ok := op.Object.(*discoveryv1.EndpointSlice)
	if !ok || op.Verb == Delete {
		return op, nil
	}
	ref := metav1.GetControllerOfNoCopy(s)
	if ref == nil || ref.UID != "" {
		return op, nil
	}
	uid, ok := created[ref.Name]
	if !ok {
		return op, fmt.Errorf("EndpointSlice %q: the UID of Service %q is not known", s.Name, ref.Name)
	}
	bound := *s
	bound.OwnerReferences = OwnerUID(s.OwnerReferences, uid)
	op.Object = &bound
	return op, nil
}
