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
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"

	servingtesting "knative.dev/serving/pkg/testing"

	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	. "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

const gatewayIP = "10.0.0.7"

// liveService is the Route's headless Service as stored, with uid.
func liveService(uid types.UID, opts ...ServiceOption) *corev1.Service {
	s := HeadlessService(RouteName, opts...)
	s.UID = uid
	return s
}

// liveSlice is the Route's IPv4 slice holding ips, controlled by the
// Service of UID owner, or by the Route when owner is the Route's UID.
func liveSlice(owner types.UID, ips ...string) *discoveryv1.EndpointSlice {
	s := Slice(RouteName, discoveryv1.AddressTypeIPv4, ips...)
	s.UID = "slice-uid"
	if owner == RouteUID {
		s.OwnerReferences = Endpoints(RouteName, nil).OwnerReferences
	} else {
		s.OwnerReferences = plan.OwnerUID(s.OwnerReferences, owner)
	}
	return s
}

// opLines renders a plan one line per operation and blocked object.
func opLines(p plan.Plan) []string {
	var out []string
	for _, op := range p.Ops {
		out = append(out, fmt.Sprintf("%s %s %s: %s", op.Verb, op.Kind, op.Name(), op.Reason))
	}
	for _, b := range p.Blocked {
		out = append(out, fmt.Sprintf("blocked by %s %s", b.Kind, b.Name))
	}
	return out
}

// TestMake plans one name, the Route's own, from what exists to a headless
// Service with an IPv4 EndpointSlice (or back to the route reconciler):
// the operations in order, then what is blocked, kept or waiting.
func TestMake(t *testing.T) {
	const otherIP = "10.0.0.8"
	want := func() resources.Addressing {
		return resources.Addressing{
			Name:    RouteName,
			Service: HeadlessService(RouteName),
			Slices:  []*discoveryv1.EndpointSlice{Slice(RouteName, discoveryv1.AddressTypeIPv4, gatewayIP)},
		}
	}
	keep := func() resources.Addressing {
		t := want()
		t.NoLoadBalancer, t.Slices = true, nil
		return t
	}
	services := func(s ...*corev1.Service) []*corev1.Service { return s }
	slices := func(s ...*discoveryv1.EndpointSlice) []*discoveryv1.EndpointSlice { return s }
	routeReconcilers := func(ips ...string) *corev1.Endpoints {
		ep := Endpoints(RouteName, ips)
		ep.UID, ep.Labels = "ep-uid", map[string]string{"serving.knative.dev/route": RouteName}
		return ep
	}
	tests := []struct {
		name     string
		target   resources.Addressing
		actual   plan.Actual
		released bool
		handback resources.RouteReconcilerShape
		want     []string
	}{{
		name:   "nothing exists: the Service, then its slice",
		target: want(),
		want: []string{
			"Create Service hello: missing",
			"Create EndpointSlice hello-ipv4: missing",
		},
	}, {
		name:   "converged: nothing",
		target: want(),
		actual: plan.Actual{Services: services(liveService("svc-uid")), Slices: slices(liveSlice("svc-uid", gatewayIP))},
	}, {
		name:   "the route reconciler's ExternalName Service: the slice first, then the Service turns headless",
		target: want(),
		actual: plan.Actual{Services: services(liveService("svc-uid", WithExternalName(GatewayDomain)))},
		want: []string{
			"Create EndpointSlice hello-ipv4: missing",
			"Update Service hello: ExternalName → headless",
		},
	}, {
		name:   "a ClusterIP Service: recreated (clusterIP is immutable), its slice after it",
		target: want(),
		actual: plan.Actual{Services: services(liveService("svc-uid", WithMeshClusterIP))},
		want: []string{
			"Delete Service hello: ClusterIP → headless needs a recreate (clusterIP is immutable)",
			"Create Service hello: ClusterIP → headless needs a recreate (clusterIP is immutable)",
			"Create EndpointSlice hello-ipv4: missing",
		},
	}, {
		name:   "the load balancer's address changed: the slice is updated",
		target: want(),
		actual: plan.Actual{Services: services(liveService("svc-uid")), Slices: slices(liveSlice("svc-uid", otherIP))},
		want:   []string{"Update EndpointSlice hello-ipv4: differs"},
	}, {
		name:   "the route reconciler's Endpoints: they go once the slice is there",
		target: want(),
		actual: plan.Actual{Services: services(liveService("svc-uid", WithExternalName(GatewayDomain))), Endpoints: []*corev1.Endpoints{routeReconcilers(gatewayIP)}},
		want: []string{
			"Create EndpointSlice hello-ipv4: missing",
			"Update Service hello: ExternalName → headless",
			"Delete Endpoints hello: not desired",
		},
	}, {
		name:   "somebody else's Service: blocked, nothing written",
		target: want(),
		actual: plan.Actual{Services: services(liveService("svc-uid", servingtesting.WithK8sSvcOwnersRemoved))},
		want:   []string{"blocked by Service hello"},
	}, {
		name:   "no load balancer: the name keeps what it has",
		target: keep(),
		actual: plan.Actual{Services: services(liveService("svc-uid")), Slices: slices(liveSlice("svc-uid", gatewayIP))},
		want:   []string{"kept hello"},
	}, {
		name:   "no load balancer and no Service: a headless placeholder",
		target: keep(),
		want:   []string{"Create Service hello: missing"},
	}, {
		name:   "a tag no longer wanted: its Service and slice go",
		target: want(),
		actual: plan.Actual{
			Services: services(liveService("svc-uid"), HeadlessService(TagService)),
			Slices:   slices(liveSlice("svc-uid", gatewayIP), Slice(TagService, discoveryv1.AddressTypeIPv4, gatewayIP)),
		},
		want: []string{
			"Delete Service " + TagService + ": orphan",
			"Delete EndpointSlice " + TagService + "-ipv4: orphan",
		},
	}, {
		name:     "released, the route reconciler has made the Service ExternalName: our slice goes",
		target:   resources.Addressing{Name: RouteName},
		actual:   plan.Actual{Services: services(liveService("svc-uid", WithExternalName(GatewayDomain))), Slices: slices(liveSlice("svc-uid", gatewayIP))},
		released: true,
		handback: resources.RouteReconcilerShape{Ready: true},
		want:     []string{"Delete EndpointSlice hello-ipv4: released to the route reconciler"},
	}, {
		name:     "released, the Service still headless: the slice stays until the route reconciler reshapes it",
		target:   resources.Addressing{Name: RouteName},
		actual:   plan.Actual{Services: services(liveService("svc-uid")), Slices: slices(liveSlice("svc-uid", gatewayIP))},
		released: true,
		handback: resources.RouteReconcilerShape{Ready: true},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.target.RouteReconciler = tc.handback
			p := plan.Make(plan.Input{Owner: Route(false), Targets: []resources.Addressing{tc.target}, Actual: tc.actual, ExternalNameMode: tc.released})
			got := opLines(p)
			for _, n := range p.NoLoadBalancer {
				got = append(got, "kept "+n)
			}
			for _, n := range p.Waiting {
				got = append(got, "waiting "+n)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHoldExisting: in a Namespace whose route-address-mode annotation is
// not a mode, the names that have a Service are left as they are (their
// operations and their wait for mirroring are left out, and they are
// listed as held); a name without a Service is planned.
func TestHoldExisting(t *testing.T) {
	const tag = "canary-" + RouteName
	headless := func(name string) resources.Addressing {
		return resources.Addressing{
			Name:    name,
			Service: HeadlessService(name),
			Slices:  []*discoveryv1.EndpointSlice{Slice(name, discoveryv1.AddressTypeIPv4, gatewayIP)},
		}
	}
	withEndpoints := resources.Addressing{Name: RouteName, Service: HeadlessService(RouteName), Endpoints: Endpoints(RouteName, []string{gatewayIP})}
	external := liveService("svc-uid", WithExternalName(GatewayDomain))
	tests := []struct {
		name    string
		targets []resources.Addressing
		actual  plan.Actual
		want    []string
		held    []string
	}{{
		name:    "an ExternalName Service that the mode would turn headless: held",
		targets: []resources.Addressing{headless(RouteName)},
		actual:  plan.Actual{Services: []*corev1.Service{external}},
		held:    []string{RouteName},
	}, {
		name:    "a name without a Service is created; the one that has a Service is held",
		targets: []resources.Addressing{headless(tag), headless(RouteName)},
		actual:  plan.Actual{Services: []*corev1.Service{external}},
		want: []string{
			"Create Service canary-hello: missing",
			"Create EndpointSlice canary-hello-ipv4: missing",
		},
		held: []string{RouteName},
	}, {
		name:    "a name waiting for mirroring: held, not waiting",
		targets: []resources.Addressing{withEndpoints},
		actual:  plan.Actual{Services: []*corev1.Service{external}, Endpoints: []*corev1.Endpoints{withUIDs(Endpoints(RouteName, []string{gatewayIP}))}},
		held:    []string{RouteName},
	}, {
		name:    "a name that has what the mode asks for: nothing to hold",
		targets: []resources.Addressing{headless(RouteName)},
		actual:  plan.Actual{Services: []*corev1.Service{liveService("svc-uid")}, Slices: []*discoveryv1.EndpointSlice{liveSlice("svc-uid", gatewayIP)}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := plan.Make(plan.Input{Owner: Route(true), Targets: tc.targets, Actual: tc.actual, HoldExisting: true})
			if diff := cmp.Diff(tc.want, opLines(p)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.held, p.Held); diff != "" {
				t.Errorf("Held (-want +got):\n%s", diff)
			}
			if len(p.Waiting) != 0 {
				t.Errorf("Waiting = %v, want none", p.Waiting)
			}
			free := plan.Make(plan.Input{Owner: Route(true), Targets: tc.targets, Actual: tc.actual})
			if len(tc.held) > 0 && len(free.Ops)+len(free.Waiting) == len(p.Ops) {
				t.Errorf("without HoldExisting the plan is the same: %v", opLines(free))
			}
		})
	}
}

// withUIDs gives ep the UID the apiserver would.
func withUIDs(ep *corev1.Endpoints) *corev1.Endpoints {
	ep.UID = "ep-uid"
	return ep
}
