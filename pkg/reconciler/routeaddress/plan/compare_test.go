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
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	. "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// headlessTarget is the Route's name made headless with an Endpoints and
// an IPv4 slice holding the gateway's address.
func headlessTarget() resources.Addressing {
	return resources.Addressing{
		Name:      RouteName,
		Service:   HeadlessService(RouteName),
		Endpoints: Endpoints(RouteName, []string{gatewayIP}, WithSkipMirror),
		Slices:    []*discoveryv1.EndpointSlice{Slice(RouteName, discoveryv1.AddressTypeIPv4, gatewayIP)},
	}
}

// externalNameTarget is the Route's name as an ExternalName Service.
func externalNameTarget() resources.Addressing {
	return resources.Addressing{Name: RouteName, Service: HeadlessService(RouteName, WithExternalName(GatewayDomain))}
}

// created returns the simulated apiserver holding t's objects as the
// apiserver stores them: defaulted, with UIDs, slices bound to their
// Service.
func created(t *testing.T, target resources.Addressing) *apiserver {
	t.Helper()
	s := newAPIServer(plan.Actual{})
	if err := s.apply(plan.Make(plan.Input{Owner: Route(false), Targets: []resources.Addressing{target}}).Ops); err != nil {
		t.Fatal("creating the live objects:", err)
	}
	return s
}

// written returns t's objects as written, with none of the apiserver's
// defaults (an apiserver that defaults nothing, or a fake client).
func written(target resources.Addressing) *apiserver {
	svc := target.Service.DeepCopy()
	svc.UID = "svc-uid"
	a := plan.Actual{Services: []*corev1.Service{svc}}
	if target.Endpoints != nil {
		ep := target.Endpoints.DeepCopy()
		ep.UID = "ep-uid"
		a.Endpoints = []*corev1.Endpoints{ep}
	}
	for _, sl := range target.Slices {
		sl = sl.DeepCopy()
		sl.UID = "slice-uid"
		sl.OwnerReferences = plan.OwnerUID(sl.OwnerReferences, svc.UID)
		a.Slices = append(a.Slices, sl)
	}
	return newAPIServer(a)
}

func svcOf(s *apiserver) *corev1.Service              { return s.services[RouteName] }
func epOf(s *apiserver) *corev1.Endpoints             { return s.endpoints[RouteName] }
func sliceOf(s *apiserver) *discoveryv1.EndpointSlice { return s.slices[RouteName+"-ipv4"] }

// TestOwnedFields compares live objects, as the apiserver returns them (or
// as written, without its defaults), with the desired ones, one field
// changed at a time: a field we own that differs is written back, and
// planning again after the write gives nothing; a field the apiserver
// defaults or somebody else set is neither a difference nor overwritten.
func TestOwnedFields(t *testing.T) {
	const (
		update   = "Update Service hello: headless spec differs"
		updateEN = "Update Service hello: ExternalName spec differs"
		updateMD = "Update Service hello: labels or annotations differ"
		updateEP = "Update Endpoints hello: differs"
		updateSL = "Update EndpointSlice hello-ipv4: differs"
	)
	tests := []struct {
		name string
		// target is the desired name (default headlessTarget).
		target func() resources.Addressing
		// raw: the live objects are the desired ones as written, not
		// defaulted by the apiserver.
		raw bool
		// want changes the desired objects after the live ones are made.
		want func(*resources.Addressing)
		// live changes the live objects.
		live func(*apiserver)
		ops  []string
		// after checks the live objects once the plan is applied.
		after func(*testing.T, *apiserver)
	}{{
		name: "as the apiserver returns them",
	}, {
		name: "as written, without the apiserver's defaults",
		raw:  true,
	}, {
		name:   "ExternalName as the apiserver returns it",
		target: externalNameTarget,
	}, {
		name: "desired type left empty, live ClusterIP as defaulted",
		want: func(t *resources.Addressing) { t.Service.Spec.Type = "" },
	}, {
		name: "type changed to NodePort",
		live: func(s *apiserver) { svcOf(s).Spec.Type = corev1.ServiceTypeNodePort },
		ops:  []string{update},
	}, {
		name:   "ExternalName host changed",
		target: externalNameTarget,
		live:   func(s *apiserver) { svcOf(s).Spec.ExternalName = "elsewhere.example.com" },
		ops:    []string{updateEN},
	}, {
		name: "desired session affinity differs",
		want: func(t *resources.Addressing) { t.Service.Spec.SessionAffinity = corev1.ServiceAffinityNone },
		live: func(s *apiserver) { svcOf(s).Spec.SessionAffinity = corev1.ServiceAffinityClientIP },
		ops:  []string{update},
	}, {
		name: "session affinity somebody set is kept",
		live: func(s *apiserver) { svcOf(s).Spec.SessionAffinity = corev1.ServiceAffinityClientIP },
	}, {
		name: "session affinity somebody set is kept when a port is written back",
		live: func(s *apiserver) {
			svcOf(s).Spec.SessionAffinity = corev1.ServiceAffinityClientIP
			svcOf(s).Spec.Ports[0].Name = "http"
		},
		ops: []string{update},
		after: func(t *testing.T, s *apiserver) {
			if got := svcOf(s).Spec.SessionAffinity; got != corev1.ServiceAffinityClientIP {
				t.Errorf("sessionAffinity = %q, want ClientIP kept", got)
			}
		},
	}, {
		name: "a selector somebody added",
		live: func(s *apiserver) { svcOf(s).Spec.Selector = map[string]string{"app": "hello"} },
		ops:  []string{update},
	}, {
		name: "a desired selector missing",
		want: func(t *resources.Addressing) { t.Service.Spec.Selector = map[string]string{"app": "hello"} },
		ops:  []string{update},
	}, {
		name: "a selector value changed",
		want: func(t *resources.Addressing) { t.Service.Spec.Selector = map[string]string{"app": "hello"} },
		live: func(s *apiserver) { svcOf(s).Spec.Selector = map[string]string{"app": "other"} },
		ops:  []string{update},
	}, {
		name: "port name",
		live: func(s *apiserver) { svcOf(s).Spec.Ports[0].Name = "http" },
		ops:  []string{update},
	}, {
		name: "port number",
		live: func(s *apiserver) { svcOf(s).Spec.Ports[0].Port = 8080 },
		ops:  []string{update},
	}, {
		name: "port targetPort",
		live: func(s *apiserver) { svcOf(s).Spec.Ports[0].TargetPort = intstr.FromInt32(8080) },
		ops:  []string{update},
	}, {
		name: "desired targetPort left empty, live defaulted to the port",
		want: func(t *resources.Addressing) { t.Service.Spec.Ports[0].TargetPort = intstr.IntOrString{} },
	}, {
		name: "desired targetPort left empty, live another port",
		want: func(t *resources.Addressing) { t.Service.Spec.Ports[0].TargetPort = intstr.IntOrString{} },
		live: func(s *apiserver) { svcOf(s).Spec.Ports[0].TargetPort = intstr.FromInt32(8080) },
		ops:  []string{update},
	}, {
		name: "port protocol UDP",
		live: func(s *apiserver) { svcOf(s).Spec.Ports[0].Protocol = corev1.ProtocolUDP },
		ops:  []string{update},
	}, {
		name: "port appProtocol removed",
		live: func(s *apiserver) { svcOf(s).Spec.Ports[0].AppProtocol = nil },
		ops:  []string{update},
	}, {
		name: "a port somebody added",
		live: func(s *apiserver) {
			svcOf(s).Spec.Ports = append(svcOf(s).Spec.Ports, corev1.ServicePort{Name: "extra", Port: 81, TargetPort: intstr.FromInt32(81), Protocol: corev1.ProtocolTCP})
		},
		ops: []string{update},
	}, {
		name: "a label of ours missing",
		live: func(s *apiserver) { delete(svcOf(s).Labels, "app") },
		ops:  []string{updateMD},
	}, {
		name: "an annotation of ours changed",
		live: func(s *apiserver) { svcOf(s).Annotations["team"] = "red" },
		ops:  []string{updateMD},
	}, {
		name: "the annotations of ours all missing",
		live: func(s *apiserver) { svcOf(s).Annotations = nil },
		ops:  []string{updateMD},
		after: func(t *testing.T, s *apiserver) {
			if got := svcOf(s).Annotations; got["team"] == "" {
				t.Errorf("annotations = %v, want ours written back", got)
			}
		},
	}, {
		name: "labels and annotations somebody added",
		live: func(s *apiserver) {
			svcOf(s).Labels["owner"] = "ops"
			svcOf(s).Annotations["note"] = "x"
		},
	}, {
		name: "annotations somebody added are kept when the Route has none",
		want: func(t *resources.Addressing) { t.Service.Annotations = nil },
		live: func(s *apiserver) {
			svcOf(s).Annotations = map[string]string{"note": "x"}
			svcOf(s).Spec.Ports[0].Name = "http"
		},
		ops: []string{update},
		after: func(t *testing.T, s *apiserver) {
			if got := svcOf(s).Annotations; got["note"] != "x" {
				t.Errorf("annotations = %v, want note=x kept", got)
			}
		},
	}, {
		name: "endpoints address",
		live: func(s *apiserver) { epOf(s).Subsets[0].Addresses[0].IP = "10.0.0.8" },
		ops:  []string{updateEP},
	}, {
		name: "endpoints hostname somebody set",
		live: func(s *apiserver) { epOf(s).Subsets[0].Addresses[0].Hostname = "gw" },
		ops:  []string{updateEP},
	}, {
		name: "endpoints not-ready address somebody added",
		live: func(s *apiserver) {
			epOf(s).Subsets[0].NotReadyAddresses = []corev1.EndpointAddress{{IP: "10.0.0.8"}}
		},
		ops: []string{updateEP},
	}, {
		name: "endpoints not-ready address changed",
		want: func(t *resources.Addressing) {
			t.Endpoints.Subsets[0].NotReadyAddresses = []corev1.EndpointAddress{{IP: "10.0.0.8"}}
		},
		live: func(s *apiserver) {
			epOf(s).Subsets[0].NotReadyAddresses = []corev1.EndpointAddress{{IP: "10.0.0.9"}}
		},
		ops: []string{updateEP},
	}, {
		name: "endpoints port name",
		live: func(s *apiserver) { epOf(s).Subsets[0].Ports[0].Name = "http" },
		ops:  []string{updateEP},
	}, {
		name: "endpoints port number",
		live: func(s *apiserver) { epOf(s).Subsets[0].Ports[0].Port = 8080 },
		ops:  []string{updateEP},
	}, {
		name: "endpoints port protocol UDP",
		live: func(s *apiserver) { epOf(s).Subsets[0].Ports[0].Protocol = corev1.ProtocolUDP },
		ops:  []string{updateEP},
	}, {
		name: "endpoints port appProtocol removed",
		live: func(s *apiserver) { epOf(s).Subsets[0].Ports[0].AppProtocol = nil },
		ops:  []string{updateEP},
	}, {
		name: "endpoints port somebody added",
		live: func(s *apiserver) {
			epOf(s).Subsets[0].Ports = append(epOf(s).Subsets[0].Ports, corev1.EndpointPort{Name: "extra", Port: 81})
		},
		ops: []string{updateEP},
	}, {
		name: "endpoints subset somebody added",
		live: func(s *apiserver) {
			epOf(s).Subsets = append(epOf(s).Subsets, corev1.EndpointSubset{Addresses: []corev1.EndpointAddress{{IP: "10.0.0.8"}}})
		},
		ops: []string{updateEP},
	}, {
		name: "endpoints skip-mirror label no longer desired",
		want: func(t *resources.Addressing) { delete(t.Endpoints.Labels, discoveryv1.LabelSkipMirror) },
		ops:  []string{updateEP},
		after: func(t *testing.T, s *apiserver) {
			if _, ok := epOf(s).Labels[discoveryv1.LabelSkipMirror]; ok {
				t.Error("skip-mirror label kept, want it removed")
			}
		},
	}, {
		name: "endpoints label somebody added",
		live: func(s *apiserver) { epOf(s).Labels["owner"] = "ops" },
	}, {
		name: "endpoints annotation of ours changed",
		live: func(s *apiserver) { epOf(s).Annotations["team"] = "red" },
		ops:  []string{updateEP},
	}, {
		name: "slice address",
		live: func(s *apiserver) { sliceOf(s).Endpoints[0].Addresses[0] = "10.0.0.8" },
		ops:  []string{updateSL},
	}, {
		name: "slice address somebody added to an endpoint",
		live: func(s *apiserver) {
			sliceOf(s).Endpoints[0].Addresses = append(sliceOf(s).Endpoints[0].Addresses, "10.0.0.8")
		},
		ops: []string{updateSL},
	}, {
		name: "slice endpoint somebody added",
		live: func(s *apiserver) {
			sliceOf(s).Endpoints = append(sliceOf(s).Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.0.0.8"}})
		},
		ops: []string{updateSL},
	}, {
		name: "slice endpoint not ready",
		live: func(s *apiserver) { sliceOf(s).Endpoints[0].Conditions.Ready = ptr.To(false) },
		ops:  []string{updateSL},
	}, {
		name: "slice ready condition unset (means ready)",
		live: func(s *apiserver) { sliceOf(s).Endpoints[0].Conditions.Ready = nil },
	}, {
		name: "slice desired not ready, live unset (ready)",
		want: func(t *resources.Addressing) { t.Slices[0].Endpoints[0].Conditions.Ready = ptr.To(false) },
		live: func(s *apiserver) { sliceOf(s).Endpoints[0].Conditions.Ready = nil },
		ops:  []string{updateSL},
	}, {
		name: "slice port name",
		live: func(s *apiserver) { sliceOf(s).Ports[0].Name = ptr.To("http") },
		ops:  []string{updateSL},
	}, {
		name: "slice port name removed",
		live: func(s *apiserver) { sliceOf(s).Ports[0].Name = nil },
		ops:  []string{updateSL},
	}, {
		name: "slice port number",
		live: func(s *apiserver) { sliceOf(s).Ports[0].Port = ptr.To[int32](8080) },
		ops:  []string{updateSL},
	}, {
		name: "slice port protocol UDP",
		live: func(s *apiserver) { sliceOf(s).Ports[0].Protocol = ptr.To(corev1.ProtocolUDP) },
		ops:  []string{updateSL},
	}, {
		name: "slice desired protocol UDP, live TCP",
		want: func(t *resources.Addressing) { t.Slices[0].Ports[0].Protocol = ptr.To(corev1.ProtocolUDP) },
		ops:  []string{updateSL},
	}, {
		name: "slice desired protocol unset, live TCP as defaulted",
		want: func(t *resources.Addressing) { t.Slices[0].Ports[0].Protocol = nil },
	}, {
		name: "slice port appProtocol removed",
		live: func(s *apiserver) { sliceOf(s).Ports[0].AppProtocol = nil },
		ops:  []string{updateSL},
	}, {
		name: "slice port somebody added",
		live: func(s *apiserver) {
			sliceOf(s).Ports = append(sliceOf(s).Ports, discoveryv1.EndpointPort{Name: ptr.To("extra"), Port: ptr.To[int32](81)})
		},
		ops: []string{updateSL},
	}, {
		name: "slice label of ours missing",
		live: func(s *apiserver) { delete(sliceOf(s).Labels, "app") },
		ops:  []string{updateSL},
	}, {
		name: "slice label somebody added",
		live: func(s *apiserver) { sliceOf(s).Labels["owner"] = "ops" },
	}, {
		name: "slice owner references somebody added are kept when it is written back",
		live: func(s *apiserver) {
			sliceOf(s).Endpoints[0].Addresses[0] = "10.0.0.8"
			sliceOf(s).OwnerReferences = append(sliceOf(s).OwnerReferences, metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "keep", UID: "cm-uid"})
		},
		ops: []string{updateSL},
		after: func(t *testing.T, s *apiserver) {
			refs := sliceOf(s).OwnerReferences
			if len(refs) != 2 || refs[0].UID != "cm-uid" || refs[1].UID != svcOf(s).UID {
				t.Errorf("owner references = %+v, want the ConfigMap's kept and the Service's as controller", refs)
			}
		},
	}}

	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			target := headlessTarget
			if tc.target != nil {
				target = tc.target
			}
			var s *apiserver
			if tc.raw {
				s = written(target())
			} else {
				s = created(t, target())
			}
			if tc.live != nil {
				tc.live(s)
			}
			desired := target()
			if tc.want != nil {
				tc.want(&desired)
			}
			in := func() plan.Input {
				return plan.Input{Owner: Route(false), Targets: []resources.Addressing{desired}, Actual: s.actual()}
			}
			p := plan.Make(in())
			if diff := cmp.Diff(tc.ops, opLines(p)); diff != "" {
				t.Fatalf("plan (-want +got):\n%s", diff)
			}
			if err := s.apply(p.Ops); err != nil {
				t.Fatal("apiserver refused the plan:", err)
			}
			if again := plan.Make(in()); len(again.Ops) != 0 {
				t.Errorf("the plan again after writing, want nothing:\n%s", describe(again))
			}
			if tc.after != nil {
				tc.after(t, s)
			}
		})
	}
}

// TestHolds checks that a create refused with AlreadyExists counts as made
// only when the live object is what it would have made.
func TestHolds(t *testing.T) {
	live := created(t, headlessTarget())
	creates := plan.Make(plan.Input{Owner: Route(false), Targets: []resources.Addressing{headlessTarget()}}).Ops
	bind := func(op plan.Op) plan.Op {
		t.Helper()
		op, err := plan.BindOwner(op, map[string]types.UID{RouteName: svcOf(live).UID})
		if err != nil {
			t.Fatal(err)
		}
		return op
	}
	liveOf := map[plan.Kind]func() metav1.Object{
		plan.KindService:       func() metav1.Object { return svcOf(live).DeepCopy() },
		plan.KindEndpoints:     func() metav1.Object { return epOf(live).DeepCopy() },
		plan.KindEndpointSlice: func() metav1.Object { return sliceOf(live).DeepCopy() },
	}
	if len(creates) != 3 {
		t.Fatalf("creates = %v, want the Service, its Endpoints and its slice", creates)
	}
	for _, op := range creates {
		op = bind(op)
		if !plan.Holds(op, liveOf[op.Kind]()) {
			t.Errorf("Holds(%s %s, the live one) = false, want true", op.Kind, op.Name())
		}
	}
	for _, tc := range []struct {
		name string
		kind plan.Kind
		live func(metav1.Object) metav1.Object
	}{
		{"Service of another shape", plan.KindService, func(o metav1.Object) metav1.Object {
			s := o.(*corev1.Service)
			s.Spec.Type, s.Spec.ClusterIP, s.Spec.ExternalName = corev1.ServiceTypeExternalName, "", GatewayDomain
			return s
		}},
		{"Endpoints with other addresses", plan.KindEndpoints, func(o metav1.Object) metav1.Object {
			o.(*corev1.Endpoints).Subsets[0].Addresses[0].IP = "10.0.0.99"
			return o
		}},
		{"slice with other addresses", plan.KindEndpointSlice, func(o metav1.Object) metav1.Object {
			o.(*discoveryv1.EndpointSlice).Endpoints[0].Addresses = []string{"10.0.0.99"}
			return o
		}},
		{"slice controlled by another Service", plan.KindEndpointSlice, func(o metav1.Object) metav1.Object {
			s := o.(*discoveryv1.EndpointSlice)
			s.OwnerReferences = plan.OwnerUID(s.OwnerReferences, "another-uid")
			return s
		}},
		{"slice controlled by nothing", plan.KindEndpointSlice, func(o metav1.Object) metav1.Object {
			o.SetOwnerReferences(nil)
			return o
		}},
		{"an object of another kind", plan.KindService, func(metav1.Object) metav1.Object { return epOf(live).DeepCopy() }},
		{"an Endpoints where a slice is wanted", plan.KindEndpointSlice, func(metav1.Object) metav1.Object { return epOf(live).DeepCopy() }},
		{"a Service where an Endpoints is wanted", plan.KindEndpoints, func(metav1.Object) metav1.Object { return svcOf(live).DeepCopy() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, op := range creates {
				if op.Kind != tc.kind {
					continue
				}
				if plan.Holds(bind(op), tc.live(liveOf[op.Kind]())) {
					t.Errorf("Holds(%s %s, %s) = true, want false", op.Kind, op.Name(), tc.name)
				}
			}
		})
	}
}
