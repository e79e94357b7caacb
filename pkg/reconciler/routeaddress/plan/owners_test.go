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

package plan_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	servingtesting "knative.dev/serving/pkg/testing"

	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
	. "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// TestSliceOwners plans our slices by who controls them: the Service, a
// Service of the name that is gone, or somebody else's Service.
func TestSliceOwners(t *testing.T) {
	const gone = types.UID("gone-uid")
	keep := func() resources.Addressing {
		tg := headlessTarget()
		tg.NoLoadBalancer, tg.Endpoints, tg.Slices = true, nil, nil
		return tg
	}
	tests := []struct {
		name   string
		target resources.Addressing
		actual plan.Actual
		ops    []string
	}{{
		name:   "somebody else's Service: our slice of a Service that is gone goes",
		target: headlessTarget(),
		actual: plan.Actual{Services: []*corev1.Service{liveService("svc-uid", servingtesting.WithK8sSvcOwnersRemoved)}, Slices: []*discoveryv1.EndpointSlice{liveSlice(gone, gatewayIP)}},
		ops: []string{
			"Delete EndpointSlice hello-ipv4: the Service is not the Route's",
			"blocked by Service hello",
		},
	}, {
		name:   "somebody else's Service: a slice it controls is left alone",
		target: headlessTarget(),
		actual: plan.Actual{Services: []*corev1.Service{liveService("svc-uid", servingtesting.WithK8sSvcOwnersRemoved)}, Slices: []*discoveryv1.EndpointSlice{liveSlice("svc-uid", gatewayIP)}},
		ops: []string{
			"blocked by Service hello",
			"blocked by EndpointSlice hello-ipv4",
		},
	}, {
		name:   "no load balancer, Service gone: a slice of the old Service is made again",
		target: keep(),
		actual: plan.Actual{Slices: []*discoveryv1.EndpointSlice{liveSlice(gone, gatewayIP)}},
		ops: []string{
			"Create Service hello: missing",
			"Delete EndpointSlice hello-ipv4: its Service was replaced",
			"Create EndpointSlice hello-ipv4: its Service was replaced",
		},
	}, {
		name:   "no load balancer, Service there: nothing is written",
		target: keep(),
		actual: plan.Actual{Services: []*corev1.Service{liveService("svc-uid")}, Slices: []*discoveryv1.EndpointSlice{liveSlice("svc-uid", gatewayIP)}},
	}, {
		name:   "Service recreated: a slice of the old Service is made again",
		target: headlessTarget(),
		actual: plan.Actual{
			Services:  []*corev1.Service{liveService("svc-uid", WithMeshClusterIP, func(s *corev1.Service) { s.Spec.ClusterIP = "10.96.0.1" })},
			Endpoints: []*corev1.Endpoints{Endpoints(RouteName, []string{gatewayIP}, WithSkipMirror)},
			Slices:    []*discoveryv1.EndpointSlice{liveSlice("svc-uid", gatewayIP)},
		},
		ops: []string{
			"Delete Service hello: ClusterIP → headless needs a recreate (clusterIP is immutable)",
			"Create Service hello: ClusterIP → headless needs a recreate (clusterIP is immutable)",
			"Delete EndpointSlice hello-ipv4: its Service is recreated",
			"Create EndpointSlice hello-ipv4: its Service is recreated",
		},
	}, {
		name:   "Service stays: a slice of a Service that is gone is replaced",
		target: headlessTarget(),
		actual: plan.Actual{
			Services:  []*corev1.Service{liveService("svc-uid")},
			Endpoints: []*corev1.Endpoints{Endpoints(RouteName, []string{gatewayIP}, WithSkipMirror)},
			Slices:    []*discoveryv1.EndpointSlice{liveSlice(gone, gatewayIP)},
		},
		ops: []string{
			"Delete EndpointSlice hello-ipv4: its Service was replaced",
			"Create EndpointSlice hello-ipv4: its Service was replaced",
		},
	}, {
		name:   "Service stays: a slice that claims our manager with no owner is taken over in place",
		target: headlessTarget(),
		actual: plan.Actual{
			Services:  []*corev1.Service{liveService("svc-uid")},
			Endpoints: []*corev1.Endpoints{Endpoints(RouteName, []string{gatewayIP}, WithSkipMirror)},
			Slices:    []*discoveryv1.EndpointSlice{claimed(RouteName+"-ipv4", "10.99.0.7")},
		},
		ops: []string{"Update EndpointSlice hello-ipv4: claims this controller's managed-by value"},
	}, {
		name:   "Service stays: one under another name is deleted once ours is written",
		target: headlessTarget(),
		actual: plan.Actual{
			Services:  []*corev1.Service{liveService("svc-uid")},
			Endpoints: []*corev1.Endpoints{Endpoints(RouteName, []string{gatewayIP}, WithSkipMirror)},
			Slices:    []*discoveryv1.EndpointSlice{liveSlice("svc-uid", gatewayIP), claimed(RouteName+"-by-hand", "10.99.0.7")},
		},
		ops: []string{"Delete EndpointSlice hello-by-hand: not desired"},
	}, {
		name:   "Service missing: a slice that claims our manager is taken over after the Service is created",
		target: headlessTarget(),
		actual: plan.Actual{Slices: []*discoveryv1.EndpointSlice{claimed(RouteName+"-ipv4", "10.99.0.7")}},
		ops: []string{
			"Create Service hello: missing",
			"Update EndpointSlice hello-ipv4: claims this controller's managed-by value",
			"Create Endpoints hello: missing",
		},
	}, {
		name:   "somebody else's Service: a slice with our managed-by value and no owner is left alone",
		target: headlessTarget(),
		actual: plan.Actual{Services: []*corev1.Service{liveService("svc-uid", servingtesting.WithK8sSvcOwnersRemoved)}, Slices: []*discoveryv1.EndpointSlice{claimed(RouteName+"-ipv4", "10.99.0.7")}},
		ops: []string{
			"blocked by Service hello",
			"blocked by EndpointSlice hello-ipv4",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := plan.Make(plan.Input{Owner: Route(false), Targets: []resources.Addressing{tc.target}, Actual: tc.actual})
			if diff := cmp.Diff(tc.ops, opLines(p)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

// claimed is a slice of the Route's Service named name, labelled with our
// managed-by value, that somebody made: no owner.
func claimed(name string, ips ...string) *discoveryv1.EndpointSlice {
	s := liveSlice("", ips...)
	s.Name, s.UID, s.OwnerReferences = name, "someone-else", nil
	return s
}

// TestOursSlice: a slice is the Route's when a Service of the name it
// serves controls it, whatever that Service's UID.
func TestOursSlice(t *testing.T) {
	byService := liveSlice("any-uid", gatewayIP)
	otherService := liveSlice("any-uid", gatewayIP)
	otherService.OwnerReferences[0].Name = "other"
	notAService := liveSlice("any-uid", gatewayIP)
	notAService.OwnerReferences[0].Kind = "Endpoints"
	otherVersion := liveSlice("any-uid", gatewayIP)
	otherVersion.OwnerReferences[0].APIVersion = "v2"
	for _, tc := range []struct {
		name  string
		slice *discoveryv1.EndpointSlice
		want  bool
	}{
		{"controlled by the Route", liveSlice(RouteUID, gatewayIP), false},
		{"controlled by a Service of its name", byService, true},
		{"controlled by a Service of another name", otherService, false},
		{"controlled by another kind of that name", notAService, false},
		{"controlled by another version of Service", otherVersion, false},
		{"no owner", claimed(RouteName+"-ipv4", gatewayIP), false},
	} {
		if got := plan.OursSlice(tc.slice, RouteName); got != tc.want {
			t.Errorf("%s: OursSlice = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestReleaseServesAddresses: in ExternalName mode, while the route
// reconciler has no shape for the name, our headless Service stays only if
// it serves an address (ready or not), through the Endpoints or a slice.
func TestReleaseServesAddresses(t *testing.T) {
	const deleteService = "Delete Service hello: released to the route reconciler: placeholder"
	withSubset := func(sub corev1.EndpointSubset) *corev1.Endpoints {
		ep := Endpoints(RouteName, nil)
		ep.UID = "ep-uid"
		ep.Subsets = []corev1.EndpointSubset{sub}
		return ep
	}
	tests := []struct {
		name   string
		actual plan.Actual
		ops    []string
	}{{
		name:   "an Endpoints subset with no address",
		actual: plan.Actual{Endpoints: []*corev1.Endpoints{withSubset(corev1.EndpointSubset{Ports: []corev1.EndpointPort{{Name: "http2", Port: 80}}})}},
		ops:    []string{deleteService, "Delete Endpoints hello: released to the route reconciler"},
	}, {
		name:   "an Endpoints subset with a ready address",
		actual: plan.Actual{Endpoints: []*corev1.Endpoints{withSubset(corev1.EndpointSubset{Addresses: []corev1.EndpointAddress{{IP: gatewayIP}}})}},
	}, {
		name:   "an Endpoints subset with only a not-ready address",
		actual: plan.Actual{Endpoints: []*corev1.Endpoints{withSubset(corev1.EndpointSubset{NotReadyAddresses: []corev1.EndpointAddress{{IP: gatewayIP}}})}},
	}, {
		name:   "a slice with no endpoint",
		actual: plan.Actual{Slices: []*discoveryv1.EndpointSlice{liveSlice("svc-uid")}},
		ops:    []string{deleteService, "Delete EndpointSlice hello-ipv4: released to the route reconciler"},
	}, {
		name:   "a slice with an endpoint",
		actual: plan.Actual{Slices: []*discoveryv1.EndpointSlice{liveSlice("svc-uid", gatewayIP)}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.actual.Services = []*corev1.Service{liveService("svc-uid")}
			target := resources.Addressing{Name: RouteName}
			p := plan.Make(plan.Input{Owner: Route(false), Targets: []resources.Addressing{target}, Actual: tc.actual, ExternalNameMode: true})
			if diff := cmp.Diff(tc.ops, opLines(p)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRestoreLabels: a slice of ours whose labels no longer select it is updated
// back, or replaced when its addressType differs.
func TestRestoreLabels(t *testing.T) {
	want := Slice(RouteName, discoveryv1.AddressTypeIPv4, gatewayIP)
	have := liveSlice("svc-uid", gatewayIP)
	have.Labels = map[string]string{"somebody": "else"}
	have.OwnerReferences = append(have.OwnerReferences, metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "keep", UID: "cm-uid", Controller: ptr.To(false)})

	ops := plan.RestoreLabels(want, have)
	if diff := cmp.Diff([]string{"Update EndpointSlice hello-ipv4: taken back"}, opLines(plan.Plan{Ops: ops})); diff != "" {
		t.Errorf("same addressType (-want +got):\n%s", diff)
	}
	got := ops[0].Object.(*discoveryv1.EndpointSlice)
	if got.Labels["somebody"] != "else" || got.Labels[discoveryv1.LabelServiceName] != RouteName {
		t.Errorf("labels = %v, want ours added and somebody's kept", got.Labels)
	}
	if refs := got.OwnerReferences; len(refs) != 2 || refs[0].UID != "cm-uid" || refs[1].Name != RouteName {
		t.Errorf("owner references = %+v, want the ConfigMap's kept and the Service as controller", refs)
	}

	have.AddressType = discoveryv1.AddressTypeIPv6
	if diff := cmp.Diff([]string{
		"Delete EndpointSlice hello-ipv4: taken back: addressType changed",
		"Create EndpointSlice hello-ipv4: taken back: addressType changed",
	}, opLines(plan.Plan{Ops: plan.RestoreLabels(want, have)})); diff != "" {
		t.Errorf("other addressType (-want +got):\n%s", diff)
	}
}

// TestWaitsForMirroring: a name whose Endpoints only answer once
// kube-controller-manager has mirrored them keeps its ExternalName Service
// and our slices until a mirrored slice holds the Endpoints' addresses, and
// says so in Waiting; nothing waits where nothing is held back.
func TestWaitsForMirroring(t *testing.T) {
	const other = "10.9.9.9"
	mirrored := func(ips ...string) *discoveryv1.EndpointSlice {
		s := Slice(RouteName, discoveryv1.AddressTypeIPv4, ips...)
		s.Name, s.UID, s.OwnerReferences = RouteName+"-x7k2p", "mirrored-uid", nil
		s.Labels[discoveryv1.LabelManagedBy] = names.MirroredBy
		return s
	}
	unmarked := func() *corev1.Endpoints { // the route reconciler's: no mark, no skip-mirror
		ep := Endpoints(RouteName, []string{gatewayIP})
		ep.UID, ep.Labels = "ep-uid", map[string]string{"serving.knative.dev/route": RouteName}
		return ep
	}
	ours := func() *corev1.Endpoints {
		ep := Endpoints(RouteName, []string{gatewayIP})
		ep.UID = "ep-uid"
		return ep
	}
	released := resources.Addressing{Name: RouteName, RouteReconciler: resources.RouteReconcilerShape{Ready: true, Endpoints: true}}
	endpointsMode := resources.Addressing{Name: RouteName, Service: HeadlessService(RouteName), Endpoints: Endpoints(RouteName, []string{gatewayIP})}
	tests := []struct {
		name     string
		target   resources.Addressing
		released bool
		actual   plan.Actual
		ops      []string
		waiting  []string
	}{{
		name:     "released: the route reconciler's Endpoints not mirrored yet, our slice stays",
		target:   released,
		released: true,
		actual:   plan.Actual{Endpoints: []*corev1.Endpoints{unmarked()}, Slices: []*discoveryv1.EndpointSlice{liveSlice("svc-uid", gatewayIP)}},
		waiting:  []string{RouteName},
	}, {
		name:     "released: mirrored, our slice goes",
		target:   released,
		released: true,
		actual:   plan.Actual{Endpoints: []*corev1.Endpoints{unmarked()}, Slices: []*discoveryv1.EndpointSlice{liveSlice("svc-uid", gatewayIP), mirrored(gatewayIP)}},
		ops:      []string{"Delete EndpointSlice hello-ipv4: released to the route reconciler"},
	}, {
		name:     "released: mirrored with another address, our slice stays",
		target:   released,
		released: true,
		actual:   plan.Actual{Endpoints: []*corev1.Endpoints{unmarked()}, Slices: []*discoveryv1.EndpointSlice{liveSlice("svc-uid", gatewayIP), mirrored(other)}},
		waiting:  []string{RouteName},
	}, {
		name:     "released: no slice of ours, nothing waits",
		target:   released,
		released: true,
		actual:   plan.Actual{Endpoints: []*corev1.Endpoints{unmarked()}},
	}, {
		name:    "Endpoints mode: our slice stays until mirrored",
		target:  endpointsMode,
		actual:  plan.Actual{Endpoints: []*corev1.Endpoints{ours()}, Slices: []*discoveryv1.EndpointSlice{liveSlice("svc-uid", gatewayIP)}},
		waiting: []string{RouteName},
	}, {
		name:   "Endpoints mode: mirrored, our slice goes",
		target: endpointsMode,
		actual: plan.Actual{Endpoints: []*corev1.Endpoints{ours()}, Slices: []*discoveryv1.EndpointSlice{liveSlice("svc-uid", gatewayIP), mirrored(gatewayIP)}},
		ops:    []string{"Delete EndpointSlice hello-ipv4: not desired"},
	}, {
		name:    "Endpoints mode from ExternalName: the Endpoints are written, the Service waits",
		target:  endpointsMode,
		actual:  plan.Actual{Services: []*corev1.Service{liveService("svc-uid", WithExternalName("gw.example.com"))}},
		ops:     []string{"Create Endpoints hello: missing"},
		waiting: []string{RouteName},
	}, {
		name:   "Endpoints mode from ExternalName, mirrored: the Service turns headless",
		target: endpointsMode,
		actual: plan.Actual{Services: []*corev1.Service{liveService("svc-uid", WithExternalName("gw.example.com"))}, Endpoints: []*corev1.Endpoints{ours()}, Slices: []*discoveryv1.EndpointSlice{mirrored(gatewayIP)}},
		ops:    []string{"Update Service hello: ExternalName → headless"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.actual.Services == nil {
				tc.actual.Services = []*corev1.Service{liveService("svc-uid")}
			}
			p := plan.Make(plan.Input{Owner: Route(false), Targets: []resources.Addressing{tc.target}, Actual: tc.actual, ExternalNameMode: tc.released})
			if diff := cmp.Diff(tc.ops, opLines(p)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.waiting, p.Waiting); diff != "" {
				t.Errorf("Waiting (-want +got):\n%s", diff)
			}
		})
	}
}
