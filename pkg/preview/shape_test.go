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

package preview

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"knative.dev/pkg/kmeta"
	v1 "knative.dev/serving/pkg/apis/serving/v1"

	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// TestCurrentShape: each shape a name can have now, in the plugin's words.
func TestCurrentShape(t *testing.T) {
	r := &v1.Route{ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "ns", UID: "route"}}
	owned := metav1.ObjectMeta{Name: "hello", Namespace: "ns", OwnerReferences: []metav1.OwnerReference{*kmeta.NewControllerRef(r)}}
	svc := func(typ corev1.ServiceType, clusterIP string, meta metav1.ObjectMeta) *corev1.Service {
		return &corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{Type: typ, ClusterIP: clusterIP}}
	}
	headless := svc(corev1.ServiceTypeClusterIP, corev1.ClusterIPNone, owned)
	ep := &corev1.Endpoints{ObjectMeta: owned}
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "hello-ipv4", Namespace: "ns", Labels: map[string]string{
		discoveryv1.LabelServiceName: "hello", discoveryv1.LabelManagedBy: names.ManagedBy,
	}}}
	mirrored := slice.DeepCopy()
	mirrored.Labels[discoveryv1.LabelManagedBy] = names.MirroredBy
	for _, c := range []struct {
		name string
		a    plan.Actual
		want string
	}{
		{"no Service", plan.Actual{}, "Absent"},
		{"somebody else's Service", plan.Actual{Services: []*corev1.Service{svc(corev1.ServiceTypeClusterIP, corev1.ClusterIPNone, metav1.ObjectMeta{Name: "hello"})}}, "NotOwned"},
		{"ExternalName", plan.Actual{Services: []*corev1.Service{svc(corev1.ServiceTypeExternalName, "", owned)}}, "ExternalName"},
		{"ClusterIP", plan.Actual{Services: []*corev1.Service{svc(corev1.ServiceTypeClusterIP, "10.0.0.1", owned)}}, "ClusterIP"},
		{"headless, nothing else", plan.Actual{Services: []*corev1.Service{headless}}, "HeadlessNoEndpoints"},
		{"headless, a mirrored slice only", plan.Actual{Services: []*corev1.Service{headless}, Slices: []*discoveryv1.EndpointSlice{mirrored}}, "HeadlessNoEndpoints"},
		{"headless with Endpoints", plan.Actual{Services: []*corev1.Service{headless}, Endpoints: []*corev1.Endpoints{ep}}, "Headless+Endpoints"},
		{"headless with our slice", plan.Actual{Services: []*corev1.Service{headless}, Slices: []*discoveryv1.EndpointSlice{slice}}, "Headless+EndpointSlices"},
		{"headless with both", plan.Actual{Services: []*corev1.Service{headless}, Endpoints: []*corev1.Endpoints{ep}, Slices: []*discoveryv1.EndpointSlice{slice}}, "Headless+Endpoints+EndpointSlices"},
	} {
		if got := currentShape(r, "hello", c.a); got != c.want {
			t.Errorf("%s: currentShape() = %q, want %q", c.name, got, c.want)
		}
	}
}
