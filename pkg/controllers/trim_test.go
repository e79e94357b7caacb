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

package controllers

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	v1 "knative.dev/serving/pkg/apis/serving/v1"
)

// fresh returns a copy of s with its own bytes, as each object decoded
// from the apiserver has.
func fresh(s string) string { return strings.Clone(s) }

func objectMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:            name,
		Namespace:       fresh("default"),
		Labels:          map[string]string{fresh("serving.knative.dev/route"): fresh("hello"), fresh(discoveryv1.LabelManagedBy): fresh("routeaddress-controller.knative.dev")},
		Annotations:     map[string]string{fresh("serving.knative.dev/creator"): fresh("alice")},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: fresh("serving.knative.dev/v1"), Kind: fresh("Route"), Name: "hello", UID: "u", Controller: ptr.To(true)}},
		ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "controller", Operation: metav1.ManagedFieldsOperationUpdate}},
	}
}

func objects() []metav1.Object {
	return []metav1.Object{
		&corev1.Service{ObjectMeta: objectMeta("hello"), Spec: corev1.ServiceSpec{
			Type: corev1.ServiceType(fresh("ExternalName")), ExternalName: fresh("gateway.gw.svc.cluster.local"),
			Ports: []corev1.ServicePort{{Name: fresh("http2"), Protocol: corev1.Protocol(fresh("TCP")), AppProtocol: ptr.To(fresh("kubernetes.io/h2c")), Port: 80}},
		}},
		&corev1.Endpoints{ObjectMeta: objectMeta("hello"), Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}},
			Ports:     []corev1.EndpointPort{{Name: fresh("http2"), Protocol: corev1.Protocol(fresh("TCP")), AppProtocol: ptr.To(fresh("kubernetes.io/h2c")), Port: 80}},
		}}},
		&discoveryv1.EndpointSlice{
			ObjectMeta: objectMeta("hello-ipv4"), AddressType: discoveryv1.AddressType(fresh("IPv4")),
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
			Ports:     []discoveryv1.EndpointPort{{Name: ptr.To(fresh("http2")), Protocol: ptr.To(corev1.Protocol(fresh("TCP"))), AppProtocol: ptr.To(fresh("kubernetes.io/h2c")), Port: ptr.To[int32](80)}},
		},
		&v1.Route{ObjectMeta: objectMeta("hello")},
	}
}

// TestTrimChangesNothingReadable: each kind comes out of trim as it went
// in, but for its managedFields.
func TestTrimChangesNothingReadable(t *testing.T) {
	tr := newTrimmer(maxShared)
	for _, o := range objects() {
		want := o.(interface{ DeepCopyObject() runtime.Object }).DeepCopyObject().(metav1.Object)
		want.SetManagedFields(nil)
		got, err := tr.trim(o)
		if err != nil {
			t.Fatalf("trim(%T) = %v", o, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("trim(%T) (-want +got):\n%s", o, diff)
		}
	}
	tombstone := cache.DeletedFinalStateUnknown{Key: "default/hello", Obj: objects()[0]}
	if got, err := tr.trim(tombstone); err != nil || !cmp.Equal(got, tombstone) {
		t.Errorf("trim(tombstone) = %v, %v; want it unchanged", got, err)
	}
}

// TestTrimShares: two objects decoded apart hold one copy of the strings
// they repeat once trimmed; past its bound a trimmer shares only what it
// already holds.
func TestTrimShares(t *testing.T) {
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	tr := newTrimmer(maxShared)
	a, _ := tr.trim(objects()[2])
	b, _ := tr.trim(objects()[2])
	sa, sb := a.(*discoveryv1.EndpointSlice), b.(*discoveryv1.EndpointSlice)
	key := func(m map[string]string, k string) string {
		for kk := range m {
			if kk == k {
				return kk
			}
		}
		return ""
	}
	for _, c := range []struct {
		what string
		a, b string
	}{
		{"namespace", sa.Namespace, sb.Namespace},
		{"label key", key(sa.Labels, discoveryv1.LabelManagedBy), key(sb.Labels, discoveryv1.LabelManagedBy)},
		{"label value", sa.Labels[discoveryv1.LabelManagedBy], sb.Labels[discoveryv1.LabelManagedBy]},
		{"annotation key", key(sa.Annotations, "serving.knative.dev/creator"), key(sb.Annotations, "serving.knative.dev/creator")},
		{"owner API version", sa.OwnerReferences[0].APIVersion, sb.OwnerReferences[0].APIVersion},
		{"owner kind", sa.OwnerReferences[0].Kind, sb.OwnerReferences[0].Kind},
		{"address type", string(sa.AddressType), string(sb.AddressType)},
		{"port name", *sa.Ports[0].Name, *sb.Ports[0].Name},
		{"port protocol", string(*sa.Ports[0].Protocol), string(*sb.Ports[0].Protocol)},
		{"app protocol", *sa.Ports[0].AppProtocol, *sb.Ports[0].AppProtocol},
	} {
		if !same(c.a, c.b) {
			t.Errorf("%s %q: two copies", c.what, c.a)
		}
	}
	if same(sa.Annotations["serving.knative.dev/creator"], sb.Annotations["serving.knative.dev/creator"]) {
		t.Error("annotation values are shared; want them left alone")
	}

	small := newTrimmer(1)
	small.trim(&corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: fresh("first")}})
	x, _ := small.trim(&corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: fresh("first"), Labels: map[string]string{fresh("k"): fresh("v")}}})
	y, _ := small.trim(&corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: fresh("first"), Labels: map[string]string{fresh("k"): fresh("v")}}})
	ex, ey := x.(*corev1.Endpoints), y.(*corev1.Endpoints)
	if !same(ex.Namespace, ey.Namespace) {
		t.Error("a bounded trimmer no longer shares what it holds")
	}
	if same(ex.Labels["k"], ey.Labels["k"]) || len(small.shared) != 1 {
		t.Errorf("a trimmer bounded to 1 string holds %d: %v", len(small.shared), small.shared)
	}
}
