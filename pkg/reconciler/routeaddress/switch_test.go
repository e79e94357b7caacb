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
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	clientgotesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	. "knative.dev/pkg/reconciler/testing"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// TestReconcileSwitch: switching route-address-mode, both directions,
// EndpointSlices moving between controllers (they are controlled by their
// Service), and a load balancer changing shape.
func TestReconcileSwitch(t *testing.T) {
	untagged := rt.Route(false)
	es, ep, eps, en := netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressModeEndpointsAndSlices, netcfg.RouteAddressModeExternalName
	on, off := netcfg.RouteAddressFallbackEnabled, netcfg.RouteAddressFallbackDisabled
	h := rt.RouteName

	var table TableTest
	// Mode switches, both directions.
	table = append(table, TableRow{
		Name:           "switch ExternalName → EndpointSlices: slices first, then the Service turns headless",
		Key:            key,
		Ctx:            withMode(es, on),
		Objects:        base(untagged, lbInternal, live(routeReconcilerObjects(untagged, lbInternal)...)...),
		WantCreates:    []runtime.Object{bound(rt.Slice(h, ipv4, "10.96.100.10"))},
		WantUpdates:    []clientgotesting.UpdateActionImpl{updateOf(headlessFrom(liveOne(routeReconcilerObjects(untagged, lbInternal)[0].(*corev1.Service)), rt.HeadlessService(h)))},
		WantEvents:     []string{created(plan.KindEndpointSlice, h+"-ipv4")},
		PostConditions: []func(*testing.T, *TableRow){inOrder("create endpointslices hello-ipv4", "update services hello")},
	}, TableRow{
		Name:    "switch EndpointSlices → ExternalName: nothing until the route reconciler has reshaped the Service",
		Key:     key,
		Ctx:     withMode(en, on),
		Objects: base(untagged, lbInternal, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.96.100.10"))...),
	}, TableRow{
		Name:        "switch EndpointSlices → ExternalName: our slices go once the Service is ExternalName",
		Key:         key,
		Ctx:         withMode(en, on),
		Objects:     base(untagged, lbInternal, live(append(routeReconcilerObjects(untagged, lbInternal), rt.Slice(h, ipv4, "10.96.100.10"))...)...),
		WantDeletes: []clientgotesting.DeleteActionImpl{deleteOf(slicesResource, h+"-ipv4")},
		WantEvents:  []string{deleted(plan.KindEndpointSlice, h+"-ipv4")},
	}, TableRow{
		Name:        "switch Endpoints → EndpointsAndSlices: skip-mirror label on, slices created",
		Key:         key,
		Ctx:         withMode(eps, on),
		Objects:     base(untagged, lbIP, live(rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7"}))...),
		WantCreates: []runtime.Object{bound(rt.Slice(h, ipv4, "10.0.0.7"))},
		WantUpdates: []clientgotesting.UpdateActionImpl{
			updateOf(withUID(withLabel(rt.Endpoints(h, []string{"10.0.0.7"}), discoveryv1.LabelSkipMirror, "true"))),
		},
		WantEvents: []string{created(plan.KindEndpointSlice, h+"-ipv4")},
		// The label makes kube-controller-manager delete the mirrored
		// slice: ours must be there by then.
		PostConditions: []func(*testing.T, *TableRow){inOrder("create endpointslices hello-ipv4", "update endpoints hello")},
	}, TableRow{
		Name: "switch EndpointsAndSlices → Endpoints: skip-mirror label off, slices kept until mirrored",
		Key:  key,
		Ctx:  withMode(ep, on),
		Objects: base(untagged, lbIP, live(
			rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7"}, rt.WithSkipMirror), rt.Slice(h, ipv4, "10.0.0.7"),
		)...),
		WantUpdates: []clientgotesting.UpdateActionImpl{
			updateOf(withUID(rt.Endpoints(h, []string{"10.0.0.7"}))),
		},
		WantErr: true, // requeued: waiting for the mirrored slice
	}, TableRow{
		Name: "switch EndpointsAndSlices → Endpoints: our slices go once the Endpoints are mirrored",
		Key:  key,
		Ctx:  withMode(ep, on),
		Objects: base(untagged, lbIP, append(live(
			rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7"}), rt.Slice(h, ipv4, "10.0.0.7"),
		), mirroredSlice(h, "10.0.0.7"))...),
		WantDeletes: []clientgotesting.DeleteActionImpl{deleteOf(slicesResource, h+"-ipv4")},
		WantEvents:  []string{deleted(plan.KindEndpointSlice, h+"-ipv4")},
	}, TableRow{
		Name: "switch EndpointsAndSlices → Endpoints: a mirrored slice with other addresses is not enough",
		Key:  key,
		Ctx:  withMode(ep, on),
		Objects: base(untagged, lbIP, append(live(
			rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7"}), rt.Slice(h, ipv4, "10.0.0.7"),
		), mirroredSlice(h, "10.0.0.9"))...),
		WantErr: true,
	}, TableRow{
		Name: "switch EndpointsAndSlices → ExternalName with an IP: the labels come off for the route reconciler",
		Key:  key,
		Ctx:  withMode(en, on),
		Objects: base(untagged, lbIP, live(
			rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7"}, rt.WithSkipMirror), rt.Slice(h, ipv4, "10.0.0.7"),
		)...),
		WantUpdates: []clientgotesting.UpdateActionImpl{
			updateOf(withUID(liveOne(withoutLabel(rt.Endpoints(h, []string{"10.0.0.7"}), names.MarkLabel)))),
		},
	}, TableRow{
		Name:    "switch EndpointsAndSlices → ExternalName with an IP: once the labels are off, our slices wait for the mirrored slice",
		Key:     key,
		Ctx:     withMode(en, on),
		Objects: base(untagged, lbIP, live(append(routeReconcilerObjects(untagged, lbIP), rt.Slice(h, ipv4, "10.0.0.7"))...)...),
		WantErr: true, // requeued: waiting for the mirrored slice
	}, TableRow{
		Name:        "switch EndpointsAndSlices → ExternalName with an IP: our slices go once the route reconciler's Endpoints are mirrored",
		Key:         key,
		Ctx:         withMode(en, on),
		Objects:     base(untagged, lbIP, append(live(append(routeReconcilerObjects(untagged, lbIP), rt.Slice(h, ipv4, "10.0.0.7"))...), mirroredSlice(h, "10.0.0.7"))...),
		WantDeletes: []clientgotesting.DeleteActionImpl{deleteOf(slicesResource, h+"-ipv4")},
		WantEvents:  []string{deleted(plan.KindEndpointSlice, h+"-ipv4")},
	}, TableRow{
		Name:    "ExternalName with an IP, the route reconciler's Endpoints not mirrored yet and no slice of ours: nothing to wait for",
		Key:     key,
		Ctx:     withMode(en, on),
		Objects: base(untagged, lbIP, live(routeReconcilerObjects(untagged, lbIP)...)...),
	}, TableRow{
		Name:        "switch EndpointSlices → Endpoints: Endpoints first, slices kept until mirrored",
		Key:         key,
		Ctx:         withMode(ep, on),
		Objects:     base(untagged, lbIP, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"))...),
		WantCreates: []runtime.Object{rt.Endpoints(h, []string{"10.0.0.7"})},
		WantEvents:  []string{created(plan.KindEndpoints, h)},
		WantErr:     true, // requeued: waiting for the mirrored slice
	}, TableRow{
		Name:        "switch ExternalName → Endpoints: Endpoints first, the Service stays ExternalName until mirrored",
		Key:         key,
		Ctx:         withMode(ep, on),
		Objects:     base(untagged, lbIP, live(routeReconcilerObjects(untagged, lbInternal)...)...),
		WantCreates: []runtime.Object{rt.Endpoints(h, []string{"10.0.0.7"})},
		WantEvents:  []string{created(plan.KindEndpoints, h)},
		WantErr:     true,
	})

	// Slices are controlled by their Service.
	goneOwner := liveOne(rt.Slice(h, ipv4, "10.0.0.7"))
	goneOwner.OwnerReferences = plan.OwnerUID(goneOwner.OwnerReferences, "uid-of-a-deleted-service")
	table = append(table, TableRow{
		Name:        "a slice whose Service was deleted and created again is replaced, not counted",
		Key:         key,
		Ctx:         withMode(es, on),
		Objects:     base(untagged, lbIP, append(live(rt.HeadlessService(h)), goneOwner)...),
		WantDeletes: []clientgotesting.DeleteActionImpl{deleteOf(slicesResource, h+"-ipv4")},
		// The dry run, then the create.
		WantCreates:    []runtime.Object{bound(rt.Slice(h, ipv4, "10.0.0.7")), bound(rt.Slice(h, ipv4, "10.0.0.7"))},
		WantEvents:     []string{done("Created", obj(plan.KindEndpointSlice, h+"-ipv4")), done("Deleted", obj(plan.KindEndpointSlice, h+"-ipv4"))},
		PostConditions: []func(*testing.T, *TableRow){inOrder("create (dry run) endpointslices hello-ipv4", "delete endpointslices hello-ipv4", "create endpointslices hello-ipv4")},
	}, TableRow{
		Name:    "a slice whose Service is gone comes back with the Service, owned by the new one",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(untagged, lbIP, goneOwner),
		// The fake clientset gives the created Service no UID.
		WantCreates:    []runtime.Object{rt.HeadlessService(h), unbound(rt.Slice(h, ipv4, "10.0.0.7")), unbound(rt.Slice(h, ipv4, "10.0.0.7"))},
		WantDeletes:    []clientgotesting.DeleteActionImpl{deleteOf(slicesResource, h+"-ipv4")},
		WantEvents:     []string{done("Created", obj(plan.KindService, h), obj(plan.KindEndpointSlice, h+"-ipv4")), done("Deleted", obj(plan.KindEndpointSlice, h+"-ipv4"))},
		PostConditions: []func(*testing.T, *TableRow){inOrder("create services hello", "create (dry run) endpointslices hello-ipv4", "delete endpointslices hello-ipv4", "create endpointslices hello-ipv4")},
	})

	// The load balancer changes shape.
	table = append(table, TableRow{
		Name:    "recreate: mesh ClusterIP → headless",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(untagged, lbIP, live(routeReconcilerObjects(untagged, lbMesh)...)...),
		WantDeletes: []clientgotesting.DeleteActionImpl{
			deleteOf(servicesResource, h),
		},
		WantCreates: []runtime.Object{
			// A dry run before the delete, then the create.
			rt.HeadlessService(h),
			rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"),
		},
		WantEvents: []string{
			done("Created", obj(plan.KindService, h), obj(plan.KindEndpointSlice, h+"-ipv4")), deleted(plan.KindService, h),
		},
		PostConditions: []func(*testing.T, *TableRow){inOrder("create (dry run) services hello", "delete services hello", "create services hello", "create endpointslices hello-ipv4")},
	}, TableRow{
		Name:    "recreate: headless → ExternalName fallback for an external Domain",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(untagged, lbDomain, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"))...),
		WantDeletes: []clientgotesting.DeleteActionImpl{
			deleteOf(servicesResource, h), deleteOf(slicesResource, h+"-ipv4"),
		},
		WantCreates: []runtime.Object{rt.HeadlessService(h, rt.WithExternalName("lb.example.com")), rt.HeadlessService(h, rt.WithExternalName("lb.example.com"))},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "ExternalNameFallback",
				"Service %q falls back to ExternalName %q because its load balancer cannot be resolved to IP addresses (route-address-externalname-fallback=enabled): ExternalDomain: load balancer domain \"lb.example.com\" is outside the cluster",
				h, "lb.example.com"),
			created(plan.KindService, h), done("Deleted", obj(plan.KindService, h), obj(plan.KindEndpointSlice, h+"-ipv4")),
		},
		PostConditions: []func(*testing.T, *TableRow){inOrder("create (dry run) services hello", "delete services hello", "create services hello", "delete endpointslices hello-ipv4")},
	}, TableRow{
		Name:    "fallback disabled: headless with no endpoints, never ExternalName",
		Key:     key,
		Ctx:     withMode(es, off),
		Objects: base(untagged, lbDomain, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"))...),
		WantDeletes: []clientgotesting.DeleteActionImpl{
			deleteOf(slicesResource, h+"-ipv4"),
		},
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, "LoadBalancerUnresolvable",
				"Service %q has no endpoints because its load balancer cannot be resolved to IP addresses (route-address-externalname-fallback=disabled): ExternalDomain: load balancer domain \"lb.example.com\" is outside the cluster", h),
			deleted(plan.KindEndpointSlice, h+"-ipv4"),
		},
	})

	table.Test(t, recording(factory()))
}

// mirroredSlice is the slice kube-controller-manager mirrors from the
// Endpoints name holding ips.
func mirroredSlice(name string, ips ...string) *discoveryv1.EndpointSlice {
	s := liveOne(rt.Slice(name, discoveryv1.AddressTypeIPv4, ips...))
	s.Name = name + "-x7k2p"
	s.Labels[discoveryv1.LabelManagedBy] = names.MirroredBy
	s.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Endpoints", Name: name, UID: k8stypes.UID("uid-" + name), Controller: ptr.To(true)}}
	return s
}

// withLabel is o with the label k=v.
func withLabel[T metav1.Object](o T, k, v string) T {
	l := map[string]string{}
	for a, b := range o.GetLabels() {
		l[a] = b
	}
	l[k] = v
	o.SetLabels(l)
	return o
}
