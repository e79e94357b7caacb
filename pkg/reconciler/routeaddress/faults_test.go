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
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientgotesting "k8s.io/client-go/testing"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	. "knative.dev/pkg/reconciler/testing"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// refuse makes the fake apiserver answer verb on resource with err.
func refuse(verb, resource string, err error) clientgotesting.ReactionFunc {
	return func(a clientgotesting.Action) (bool, runtime.Object, error) {
		if a.GetVerb() == verb && a.GetResource().Resource == resource {
			return true, nil, err
		}
		return false, nil, nil
	}
}

// refuseNamed is refuse for the object name only.
func refuseNamed(verb, resource, name string, err error) clientgotesting.ReactionFunc {
	return func(a clientgotesting.Action) (bool, runtime.Object, error) {
		if c, ok := a.(clientgotesting.CreateAction); ok && verb == "create" && a.GetResource().Resource == resource {
			if m, ok := c.GetObject().(interface{ GetName() string }); ok && m.GetName() == name {
				return true, nil, err
			}
		}
		return false, nil, nil
	}
}

// serve makes the fake apiserver answer a get of resource with o, an
// object the listers do not show (as when the informer is behind).
func serve(resource string, o runtime.Object) clientgotesting.ReactionFunc {
	return func(a clientgotesting.Action) (bool, runtime.Object, error) {
		if a.GetVerb() == "get" && a.GetResource().Resource == resource {
			return true, o, nil
		}
		return false, nil, nil
	}
}

// TestReconcileFaults holds the faults a name must survive, one or more rows
// each: a managed mode must never take a name off DNS where the route reconciler keeps
// it, and one name must never stop the others.
func TestReconcileFaults(t *testing.T) {
	route := rt.Route(true)
	untagged := rt.Route(false)
	es, ep, eps, en := netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressModeEndpointsAndSlices, netcfg.RouteAddressModeExternalName
	on := netcfg.RouteAddressFallbackEnabled
	h, tg := rt.RouteName, rt.TagService
	invalid := apierrs.NewInvalid(schema.GroupKind{Kind: "Service"}, h,
		field.ErrorList{field.Invalid(field.NewPath("spec", "externalName"), "X", "must be lower case")})
	invalidSlice := apierrs.NewInvalid(schema.GroupKind{Group: "discovery.k8s.io", Kind: "EndpointSlice"}, h+"-ipv4",
		field.ErrorList{field.TooMany(field.NewPath("endpoints"), 1001, 1000)})
	conflict := apierrs.NewConflict(schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, h+"-ipv4", nil)

	fallbackWarning := Eventf(corev1.EventTypeWarning, "ExternalNameFallback",
		"Service %q falls back to ExternalName %q because its load balancer cannot be resolved to IP addresses (route-address-externalname-fallback=enabled): ExternalDomain: load balancer domain \"lb.example.com\" is outside the cluster",
		h, "lb.example.com")
	notReady := func(name string) string {
		return Eventf(corev1.EventTypeWarning, "LoadBalancerNotReady",
			"Service %q keeps its last addresses: KIngress %q has no load balancer status; they follow it again once it has one", name, h)
	}

	table := TableTest{{
		// Fault 1: the load balancer status goes away. The route reconciler keeps the
		// last Service and Endpoints; so do we.
		Name: "fault 1: load balancer gone, EndpointsAndSlices: the last addresses are kept",
		Key:  key,
		Ctx:  withMode(eps, on),
		Objects: base(route, lbNone, live(
			rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7"}, rt.WithSkipMirror), rt.Slice(h, ipv4, "10.0.0.7"),
			rt.HeadlessService(tg), rt.Endpoints(tg, []string{"10.0.0.7"}, rt.WithSkipMirror), rt.Slice(tg, ipv4, "10.0.0.7"),
		)...),
		WantEvents: []string{
			notReady(h), notReady(tg),
		},
	}, {
		Name:    "fault 1: load balancer gone, already reported: nothing at all",
		Key:     key,
		Ctx:     withWarned(withMode(es, on), notReady(tg), notReady(h)),
		Objects: base(route, lbNone, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"), rt.HeadlessService(tg), rt.Slice(tg, ipv4, "10.0.0.7"))...),
	}, {
		Name:    "fault 1: KIngress gone, EndpointSlices: the last addresses are kept",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: append([]runtime.Object{untagged, gateway()}, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"))...),
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "LoadBalancerNotReady",
				"Service %q keeps its last addresses: KIngress %q does not exist; they follow it again once it has a load balancer", h, h),
		},
	}, {
		// Found by FuzzPlan: with no load balancer, a missing Service came
		// back but its last endpoints were deleted.
		Name:    "fault 1: load balancer gone and the Service deleted: it comes back, the last addresses stay",
		Key:     key,
		Ctx:     withMode(eps, on),
		Objects: base(untagged, lbNone, live(rt.Endpoints(h, []string{"10.0.0.7"}, rt.WithSkipMirror), rt.Slice(h, ipv4, "10.0.0.7"))...),
		// The slice of the deleted Service is garbage collected: it is
		// made again, from what it held, for the new one (the fake
		// clientset gives the new Service no UID).
		WantCreates: []runtime.Object{
			rt.HeadlessService(h),
			unbound(rt.Slice(h, ipv4, "10.0.0.7")),
			unbound(rt.Slice(h, ipv4, "10.0.0.7")),
		},
		WantDeletes: []clientgotesting.DeleteActionImpl{deleteOf(slicesResource, h+"-ipv4")},
		WantEvents: []string{
			done("Created", obj(plan.KindService, h), obj(plan.KindEndpointSlice, h+"-ipv4")),
			deleted(plan.KindEndpointSlice, h+"-ipv4"),
		},
		PostConditions: []func(*testing.T, *TableRow){inOrder("create services hello", "create (dry run) endpointslices hello-ipv4", "delete endpointslices hello-ipv4", "create endpointslices hello-ipv4")},
	}, {
		Name:    "fault 1: load balancer gone while switching to ExternalName: our slices stay until the route reconciler reshapes",
		Key:     key,
		Ctx:     withMode(en, on),
		Objects: base(untagged, lbNone, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.96.100.10"))...),
	}, {
		// Fault 2: a replacement the apiserver refuses must not be preceded
		// by the delete.
		Name:         "fault 2: recreate refused by the apiserver: the live Service stays",
		Key:          key,
		Ctx:          withMode(es, on),
		Objects:      base(untagged, lbIP, live(routeReconcilerObjects(untagged, lbMesh)...)...),
		WithReactors: []clientgotesting.ReactionFunc{refuse("create", "services", invalid)},
		WantErr:      true,
		// The dry run only.
		WantCreates: []runtime.Object{rt.HeadlessService(h)},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "CreationFailed",
				"Failed to create Service %q (dry run before replacing it; the current one is kept): %v", h, invalid),
			Eventf(corev1.EventTypeWarning, "InternalError", "failed to create Service %q (dry run): %v", h, invalid),
		},
	}, {
		// Fault 4: one blocked name never stops the others.
		Name:    "fault 4: a slice of ours without its managed-by label is taken back, the other name proceeds",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbIP, live(withoutLabel(rt.Slice(tg, ipv4, "10.0.0.7"), discoveryv1.LabelManagedBy))...),
		WantCreates: []runtime.Object{
			rt.HeadlessService(tg), rt.HeadlessService(h),
			rt.Slice(tg, ipv4, "10.0.0.7"), rt.Slice(h, ipv4, "10.0.0.7"),
		},
		// The fake clientset gives the created Service no UID: the slice
		// is taken back for a Service of UID "".
		WantUpdates: []clientgotesting.UpdateActionImpl{
			updateOf(unbound(withUID(liveOne(rt.Slice(tg, ipv4, "10.0.0.7"))))),
		},
		WantEvents: []string{
			done("Created", obj(plan.KindService, tg), obj(plan.KindService, h), obj(plan.KindEndpointSlice, h+"-ipv4")),
		},
	}, {
		Name: "fault 4: a foreign slice with a wanted name and no label blocks that name only",
		Key:  key,
		Ctx:  withMode(es, on),
		Objects: base(route, lbIP, foreign(liveOne(withoutLabel(withoutLabel(rt.Slice(tg, ipv4, "10.0.0.7"),
			discoveryv1.LabelManagedBy), "serving.knative.dev/route")))),
		WantErr: true,
		WantCreates: []runtime.Object{
			rt.HeadlessService(tg), rt.HeadlessService(h),
			rt.Slice(tg, ipv4, "10.0.0.7"), rt.Slice(h, ipv4, "10.0.0.7"),
		},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, ForeignEndpointSlice, "EndpointSlice %q (no managed-by label) is labelled with Service %q of Route %q and adds 10.0.0.7 to its name while the Service is headless; it is not the Route's and is left alone", tg+"-ipv4", tg, h),
			Eventf(corev1.EventTypeWarning, "NotOwned", "EndpointSlice %q already exists and is not controlled by Route %q; it is left alone", tg+"-ipv4", h),
			done("Created", obj(plan.KindService, tg), obj(plan.KindService, h), obj(plan.KindEndpointSlice, h+"-ipv4")),
			Eventf(corev1.EventTypeWarning, "InternalError", "failed to create EndpointSlice %q: endpointslices.discovery.k8s.io %q already exists", tg+"-ipv4", tg+"-ipv4"),
		},
	}, {
		Name:    "fault 4: a failing create stops its own name only",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbIP, live(rt.HeadlessService(h), rt.HeadlessService(tg))...),
		// The tag's slice comes first in the plan and fails.
		WithReactors: []clientgotesting.ReactionFunc{refuseNamed("create", "endpointslices", tg+"-ipv4", errors.New("inducing failure"))},
		WantErr:      true,
		WantCreates:  []runtime.Object{bound(rt.Slice(tg, ipv4, "10.0.0.7")), bound(rt.Slice(h, ipv4, "10.0.0.7"))},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "CreationFailed", "Failed to create EndpointSlice %q: inducing failure", tg+"-ipv4"),
			created(plan.KindEndpointSlice, h+"-ipv4"),
			Eventf(corev1.EventTypeWarning, "InternalError", "failed to create EndpointSlice %q: inducing failure", tg+"-ipv4"),
		},
	}, {
		// Fault 5: ours in Endpoints mode with two families, released.
		Name:    "fault 5: Endpoints mode, IPv4+IPv6, switched to ExternalName: the route reconciler refuses two entries, ours go",
		Key:     key,
		Ctx:     withMode(en, on),
		Objects: base(untagged, lbDual, live(rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7", "fd00::7"}))...),
		WantDeletes: []clientgotesting.DeleteActionImpl{
			deleteOf(servicesResource, h), deleteOf(endpointsResource, h),
		},
		WantEvents: []string{done("Deleted", obj(plan.KindService, h), obj(plan.KindEndpoints, h))},
	}, {
		Name:    "fault 5: Endpoints of ours from before the mark get it",
		Key:     key,
		Ctx:     withMode(ep, on),
		Objects: base(untagged, lbIP, live(withoutLabel(rt.Endpoints(h, []string{"10.0.0.7"}), names.MarkLabel), rt.HeadlessService(h))...),
		WantUpdates: []clientgotesting.UpdateActionImpl{
			updateOf(withUID(rt.Endpoints(h, []string{"10.0.0.7"}))),
		},
	}, {
		Name:    "fault 5: released with an IP: the route reconciler takes over our Endpoints, mark and skip-mirror off",
		Key:     key,
		Ctx:     withMode(en, on),
		Objects: base(untagged, lbIP, live(rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7"}))...),
		WantUpdates: []clientgotesting.UpdateActionImpl{
			updateOf(withUID(liveOne(withoutLabel(rt.Endpoints(h, []string{"10.0.0.7"}), names.MarkLabel)))),
		},
	}, {
		// Fault 6: an address the apiserver would refuse is left out and
		// said so; a rewritten one is said so.
		Name:    "fault 6: a loopback load balancer IP is left out with a Warning, the other one used",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(untagged, []netv1alpha1.LoadBalancerIngressStatus{rt.IP("127.0.0.1"), rt.IP("10.0.0.7")}),
		WantCreates: []runtime.Object{
			rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"),
		},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "LoadBalancerUnresolvable",
				"Service %q: some load balancer entries are left out or rewritten: AddressNotAllowed: load balancer IP 127.0.0.1 is a loopback address, which Endpoints and EndpointSlices may not hold; it is left out", h),
			done("Created", obj(plan.KindService, h), obj(plan.KindEndpointSlice, h+"-ipv4")),
		},
	}, {
		Name: "fault 6: an IPv4-mapped load balancer IP is used as IPv4, and said so",
		Key:  key,
		Ctx:  withMode(es, on),
		Objects: base(untagged, []netv1alpha1.LoadBalancerIngressStatus{rt.IP("::ffff:10.0.0.7")}, live(
			rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"),
		)...),
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "LoadBalancerAddressRewritten",
				"Service %q: IPv4MappedAddress: load balancer IP ::ffff:10.0.0.7 is an IPv4-mapped IPv6 address; it is used as 10.0.0.7", h),
		},
	}, {
		// Fault 7: noise.
		Name:    "fault 7: a fallback Warning already reported is not repeated",
		Key:     key,
		Ctx:     withWarned(withMode(es, on), fallbackWarning),
		Objects: base(untagged, lbDomain, live(rt.HeadlessService(h, rt.WithExternalName("lb.example.com")))...),
	}, {
		// Informers behind the apiserver (after a restart of either): what
		// the create would have made is there, so the name goes on.
		Name:    "fault 7: AlreadyExists for our own Service, as wanted, the informer has not shown: taken as made, its slice follows",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(untagged, lbIP),
		WithReactors: []clientgotesting.ReactionFunc{
			refuse("create", "services", apierrs.NewAlreadyExists(schema.GroupResource{Resource: "services"}, h)),
			serve("services", liveOne(rt.HeadlessService(h))),
		},
		WantCreates: []runtime.Object{rt.HeadlessService(h), bound(rt.Slice(h, ipv4, "10.0.0.7"))},
		WantEvents:  []string{Eventf(corev1.EventTypeNormal, "Created", "Created EndpointSlice %q", h+"-ipv4")},
	}, {
		Name:    "fault 7: AlreadyExists for our own slice, as wanted, the informer has not shown: taken as made, not rewritten",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(untagged, lbIP, live(rt.HeadlessService(h))...),
		WithReactors: []clientgotesting.ReactionFunc{
			refuse("create", "endpointslices", apierrs.NewAlreadyExists(schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, h+"-ipv4")),
			serve("endpointslices", liveOne(rt.Slice(h, ipv4, "10.0.0.7"))),
		},
		WantCreates: []runtime.Object{bound(rt.Slice(h, ipv4, "10.0.0.7"))},
	}, {
		// A replica that lost its lease while frozen wakes with stale
		// caches: the slice the new leader made is not rewritten.
		Name:    "fault 7: AlreadyExists for our own slice, other addresses, the informer has not shown: requeued, not rewritten",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(untagged, lbIP, live(rt.HeadlessService(h))...),
		WithReactors: []clientgotesting.ReactionFunc{
			refuse("create", "endpointslices", apierrs.NewAlreadyExists(schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, h+"-ipv4")),
			serve("endpointslices", liveOne(rt.Slice(h, ipv4, "10.0.0.9"))),
		},
		WantErr:     true,
		WantCreates: []runtime.Object{bound(rt.Slice(h, ipv4, "10.0.0.7"))},
	}, {
		// Somebody's slice under the wanted name that carries our
		// managed-by value: the planner takes it over once the informer
		// shows it.
		Name:    "fault 7: AlreadyExists for a slice that claims our manager: requeued, no NotOwned",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(untagged, lbIP, live(rt.HeadlessService(h))...),
		WithReactors: []clientgotesting.ReactionFunc{
			refuse("create", "endpointslices", apierrs.NewAlreadyExists(schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, h+"-ipv4")),
			serve("endpointslices", foreign(liveOne(rt.Slice(h, ipv4, "10.0.0.9")))),
		},
		WantErr:     true,
		WantCreates: []runtime.Object{bound(rt.Slice(h, ipv4, "10.0.0.7"))},
	}, {
		Name:         "fault 7: a conflict is retried without a Warning",
		Key:          key,
		Ctx:          withMode(es, on),
		Objects:      base(untagged, lbIP2, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"))...),
		WithReactors: []clientgotesting.ReactionFunc{refuse("update", "endpointslices", conflict)},
		WantErr:      true,
		WantUpdates:  []clientgotesting.UpdateActionImpl{updateOf(withUID(liveOne(rt.Slice(h, ipv4, "10.0.0.8"))))},
	}, {
		Name:    "not owned: a Service someone else made with the Route's name",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(untagged, lbIP, foreign(liveOne(rt.HeadlessService(h)))),
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "NotOwned", "Service %q exists and is not controlled by Route %q; it is left alone and this name is not addressed", h, h),
		},
	}, {
		Name: "not owned: Endpoints someone else made with the Route's name",
		Key:  key,
		Ctx:  withMode(ep, on),
		Objects: base(untagged, lbIP, liveOne(rt.HeadlessService(h)),
			foreign(liveOne(rt.Endpoints(h, []string{"10.0.0.7"})))),
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "NotOwned", "Endpoints %q exists and is not controlled by Route %q; it is left alone and this name is not addressed", h, h),
		},
	}, {
		// A slice that carries our managed-by value for the Route's Service
		// is ours, whoever made it, as the EndpointSlice controller treats
		// slices that carry its value: one under the name the Route wants
		// is taken over in place (its foreign address replaced), one under
		// another name is deleted once ours is written.
		Name: "slices that claim our manager: taken over, or deleted",
		Key:  key,
		Ctx:  withMode(es, on),
		Objects: base(untagged, lbIP, liveOne(rt.HeadlessService(h)),
			foreign(liveOne(rt.Slice(h, ipv4, "10.0.0.9"))), foreign(named(liveOne(rt.Slice(h, ipv4, "10.0.0.9")), h+"-extra"))),
		WantUpdates: []clientgotesting.UpdateActionImpl{updateOf(foreignUID(liveOne(rt.Slice(h, ipv4, "10.0.0.7"))))},
		WantDeletes: []clientgotesting.DeleteActionImpl{deleteOf(slicesResource, h+"-extra")},
		WantEvents:  []string{done("Deleted", obj(plan.KindEndpointSlice, h+"-extra"))},
	}, {
		// Writes that fail: an error (the Route is retried) and a Warning,
		// except a delete that finds the object already gone.
		Name:         "create fails",
		Key:          key,
		Ctx:          withMode(es, on),
		Objects:      base(untagged, lbIP),
		WithReactors: []clientgotesting.ReactionFunc{InduceFailure("create", "services")},
		WantErr:      true,
		WantCreates:  []runtime.Object{rt.HeadlessService(h)},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "CreationFailed", "Failed to create Service %q: inducing failure for create services", h),
			Eventf(corev1.EventTypeWarning, "InternalError", "failed to create Service %q: inducing failure for create services", h),
		},
	}, {
		// A refusal that passes by itself (429, 5xx, the admission
		// plugin's RESTMapper not knowing the Route's kind yet after an
		// apiserver restart) retries the Route after its own delay, not
		// through the work queue's shared rate limit: a requeue, with the
		// failed write's Warning and no InternalError.
		Name:         "create refused for a passing reason",
		Key:          key,
		Ctx:          withMode(es, on),
		Objects:      base(untagged, lbIP),
		WithReactors: []clientgotesting.ReactionFunc{refuse("create", "services", apierrs.NewTooManyRequests("slow down", 1))},
		WantErr:      true,
		WantCreates:  []runtime.Object{rt.HeadlessService(h)},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "CreationFailed", "Failed to create Service %q: slow down", h),
		},
	}, {
		Name:         "update fails",
		Key:          key,
		Ctx:          withMode(es, on),
		Objects:      base(untagged, lbIP2, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"))...),
		WithReactors: []clientgotesting.ReactionFunc{InduceFailure("update", "endpointslices")},
		WantErr:      true,
		WantUpdates:  []clientgotesting.UpdateActionImpl{updateOf(withUID(liveOne(rt.Slice(h, ipv4, "10.0.0.8"))))},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "UpdateFailed", "Failed to update EndpointSlice %q: inducing failure for update endpointslices", h+"-ipv4"),
			Eventf(corev1.EventTypeWarning, "InternalError", "failed to update EndpointSlice %q: inducing failure for update endpointslices", h+"-ipv4"),
		},
	}, {
		Name: "delete fails",
		Key:  key,
		Ctx:  withMode(es, on),
		Objects: base(untagged, lbIP, live(
			rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"),
			rt.HeadlessService(tg), rt.Slice(tg, ipv4, "10.0.0.7"),
		)...),
		WithReactors: []clientgotesting.ReactionFunc{InduceFailure("delete", "services")},
		WantErr:      true,
		WantDeletes:  []clientgotesting.DeleteActionImpl{deleteOf(servicesResource, tg)},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "DeleteFailed", "Failed to delete Service %q: inducing failure for delete services", tg),
			Eventf(corev1.EventTypeWarning, "InternalError", "failed to delete Service %q: inducing failure for delete services", tg),
		},
	}, {
		Name: "delete finds the object already gone (garbage collected): not an error",
		Key:  key,
		Ctx:  withMode(eps, on),
		Objects: base(untagged, lbIP, live(
			rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7"}, rt.WithSkipMirror), rt.Slice(h, ipv4, "10.0.0.7"),
			rt.HeadlessService(tg), rt.Endpoints(tg, []string{"10.0.0.7"}, rt.WithSkipMirror), rt.Slice(tg, ipv4, "10.0.0.7"),
		)...),
		WithReactors: []clientgotesting.ReactionFunc{
			refuse("delete", "endpointslices", apierrs.NewNotFound(schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, tg+"-ipv4")),
		},
		WantDeletes: []clientgotesting.DeleteActionImpl{
			deleteOf(servicesResource, tg), deleteOf(endpointsResource, tg), deleteOf(slicesResource, tg+"-ipv4"),
		},
		WantEvents: []string{
			done("Deleted", obj(plan.KindService, tg), obj(plan.KindEndpoints, tg), obj(plan.KindEndpointSlice, tg+"-ipv4")),
		},
	}, {
		Name:    "update finds the object gone: an error",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(untagged, lbIP2, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"))...),
		WithReactors: []clientgotesting.ReactionFunc{
			refuse("update", "endpointslices", apierrs.NewNotFound(schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, h+"-ipv4")),
		},
		WantErr:     true,
		WantUpdates: []clientgotesting.UpdateActionImpl{updateOf(withUID(liveOne(rt.Slice(h, ipv4, "10.0.0.8"))))},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "UpdateFailed", "Failed to update EndpointSlice %q: endpointslices.discovery.k8s.io %q not found", h+"-ipv4", h+"-ipv4"),
			Eventf(corev1.EventTypeWarning, "InternalError", "failed to update EndpointSlice %q: endpointslices.discovery.k8s.io %q not found", h+"-ipv4", h+"-ipv4"),
		},
	}, {
		Name:         "an EndpointSlice refused as invalid: the Warning says how many addresses it held and the limit",
		Key:          key,
		Ctx:          withMode(es, on),
		Objects:      base(untagged, lbIP, live(rt.HeadlessService(h))...),
		WithReactors: []clientgotesting.ReactionFunc{refuse("create", "endpointslices", invalidSlice)},
		WantErr:      true,
		WantCreates:  []runtime.Object{bound(rt.Slice(h, ipv4, "10.0.0.7"))},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "CreationFailed", "Failed to create EndpointSlice %q holding 1 addresses (at most 1000 in an EndpointSlice): %v", h+"-ipv4", invalidSlice),
			Eventf(corev1.EventTypeWarning, "InternalError", "failed to create EndpointSlice %q: %v", h+"-ipv4", invalidSlice),
		},
	}, {
		// Kubernetes' EndpointSlice controller drops such work too
		// (NamespaceTerminatingCause): no retry, no Warning (an Event
		// cannot be created there either), one log line per namespace.
		Name:         "the namespace is terminating: the write is dropped, not retried",
		Key:          key,
		Ctx:          withMode(es, on),
		Objects:      base(route, lbIP),
		WithReactors: []clientgotesting.ReactionFunc{refuse("create", "services", terminatingErr("services", tg))},
		WantCreates:  []runtime.Object{rt.HeadlessService(tg)},
	}, {
		Name:         "the namespace is terminating during a replacement's dry run: dropped before the delete",
		Key:          key,
		Ctx:          withMode(es, on),
		Objects:      base(untagged, lbIP, live(routeReconcilerObjects(untagged, lbMesh)...)...),
		WithReactors: []clientgotesting.ReactionFunc{refuse("create", "services", terminatingErr("services", h))},
		WantCreates:  []runtime.Object{rt.HeadlessService(h)},
	}}
	table.Test(t, recording(factory()))
}

func foreign[T metav1.Object](o T) T {
	o.SetOwnerReferences(nil)
	o.SetUID("someone-else")
	return o
}

// foreignUID is o with the UID foreign gives.
func foreignUID[T metav1.Object](o T) T {
	o.SetUID("someone-else")
	return o
}

// named is o renamed.
func named[T metav1.Object](o T, name string) T {
	o.SetName(name)
	return o
}
