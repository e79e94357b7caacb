//go:build e2e

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

package conformance

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// TestMirrorModel: plan.Mirrored, the model of kube-controller-manager's
// endpointslicemirroring that the planner's tests and kubectl
// route-address plan use, makes of an Endpoints what the real one makes:
// the labels and annotations it copies, the address families, the ready
// and not-ready addresses, the ports and the owner; and it mirrors neither
// an Endpoints labelled skip-mirror nor one of a Service with a selector.
func TestMirrorModel(t *testing.T) {
	if env.local == nil {
		skipOrFail(t, "needs the local control plane's kube-controller-manager")
	}
	ns := namespace(t, "mirror-model")
	create := func(name string, selector map[string]string, labels map[string]string) (*corev1.Service, *corev1.Endpoints) {
		t.Helper()
		svc, err := env.kube.CoreV1().Services(ns).Create(bg(), &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec:       corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: selector, Ports: []corev1.ServicePort{{Name: "http2", Port: 80}}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ep, err := env.kube.CoreV1().Endpoints(ns).Create(bg(), &corev1.Endpoints{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: ns, Name: name, Labels: labels,
				Annotations: map[string]string{
					"team":                                  "blue",
					corev1.LastAppliedConfigAnnotation:      "{}",
					corev1.EndpointsLastChangeTriggerTime:   "2026-12-02T00:00:00Z",
					"endpoints.kubernetes.io/over-capacity": "truncated",
				},
			},
			Subsets: []corev1.EndpointSubset{{
				Addresses:         []corev1.EndpointAddress{{IP: "10.0.0.7", Hostname: "a"}, {IP: "10.0.0.8"}, {IP: "fd00::7"}},
				NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.0.0.9"}},
				Ports:             []corev1.EndpointPort{{Name: "http2", Port: 80, Protocol: corev1.ProtocolTCP, AppProtocol: ptr.To("kubernetes.io/h2c")}},
			}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return svc, ep
	}
	labels := map[string]string{"serving.knative.dev/route": "model", "app": "hello", discoveryv1.LabelManagedBy: "someone"}
	// Those it must not mirror first: by the time it has mirrored "model",
	// it has seen them.
	create("skipped", nil, map[string]string{discoveryv1.LabelSkipMirror: "true"})
	create("selected", map[string]string{"app": "none"}, labels)
	svc, ep := create("model", nil, labels)

	mirroredOf := func(name string) ([]discoveryv1.EndpointSlice, error) {
		l, err := env.kube.DiscoveryV1().EndpointSlices(ns).List(bg(), metav1.ListOptions{
			LabelSelector: discoveryv1.LabelServiceName + "=" + name + "," + discoveryv1.LabelManagedBy + "=" + names.MirroredBy,
		})
		if err != nil {
			return nil, err
		}
		return l.Items, nil
	}
	want := plan.Mirrored(plan.Actual{Services: []*corev1.Service{svc}, Endpoints: []*corev1.Endpoints{ep}})
	if len(want) != 2 {
		t.Fatalf("the model mirrors %d slices, want one per family", len(want))
	}
	var got []discoveryv1.EndpointSlice
	eventually(t, "kube-controller-manager mirrored the Endpoints", func() error {
		var err error
		if got, err = mirroredOf("model"); err != nil {
			return err
		}
		n := 0
		for _, s := range got {
			n += len(s.Endpoints)
		}
		if n != 4 {
			return fmt.Errorf("%d slices holding %d addresses", len(got), n)
		}
		return nil
	})
	if diff := cmp.Diff(predicted(want), predicted(ptrs(got))); diff != "" {
		t.Error("plan.Mirrored differs from kube-controller-manager's mirrored slices (-model, +kube-controller-manager):", diff)
	}
	for _, name := range []string{"skipped", "selected"} {
		if l, err := mirroredOf(name); err != nil || len(l) != 0 {
			t.Errorf("Endpoints %q: %d mirrored slices (%v), want none", name, len(l), err)
		}
	}
	t.Logf("kube-controller-manager's mirrored slices and the model's agree: %d slices, labels %v, annotations %v", len(got), got[0].Labels, got[0].Annotations)
}

func ptrs(ss []discoveryv1.EndpointSlice) []*discoveryv1.EndpointSlice {
	out := make([]*discoveryv1.EndpointSlice, len(ss))
	for i := range ss {
		out[i] = &ss[i]
	}
	return out
}

// predicted keeps what the model predicts of slices, without the names
// kube-controller-manager generates and what the apiserver fills in, in a
// stable order.
func predicted(ss []*discoveryv1.EndpointSlice) []discoveryv1.EndpointSlice {
	out := make([]discoveryv1.EndpointSlice, 0, len(ss))
	for _, s := range ss {
		c := discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: s.Namespace, Labels: s.Labels, Annotations: s.Annotations, OwnerReferences: s.OwnerReferences,
			},
			AddressType: s.AddressType,
			Ports:       s.Ports,
		}
		for _, e := range s.Endpoints {
			c.Endpoints = append(c.Endpoints, discoveryv1.Endpoint{
				Addresses: e.Addresses, Conditions: discoveryv1.EndpointConditions{Ready: e.Conditions.Ready},
				Hostname: e.Hostname, NodeName: e.NodeName, TargetRef: e.TargetRef,
			})
		}
		slices.SortFunc(c.Endpoints, func(a, b discoveryv1.Endpoint) int { return strings.Compare(a.Addresses[0], b.Addresses[0]) })
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b discoveryv1.EndpointSlice) int {
		return strings.Compare(string(a.AddressType), string(b.AddressType))
	})
	return out
}
