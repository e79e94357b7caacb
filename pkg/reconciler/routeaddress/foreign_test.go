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
	"context"
	"fmt"
	"runtime"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	. "knative.dev/pkg/reconciler/testing"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// foreignSlice is an EndpointSlice under the Service name svc that another
// controller claims (managedBy; none when empty), with no owner.
func foreignSlice(name, svc, managedBy string, ips ...string) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: rt.Namespace,
			Name:      name,
			Labels:    map[string]string{discoveryv1.LabelServiceName: svc},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
	if managedBy != "" {
		s.Labels[discoveryv1.LabelManagedBy] = managedBy
	}
	for _, ip := range ips {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}})
	}
	return s
}

const sliceController = "endpointslice-controller.k8s.io"

func TestReconcileForeignSlices(t *testing.T) {
	route := rt.Route(true)
	es := netcfg.RouteAddressModeEndpointSlices
	on := netcfg.RouteAddressFallbackEnabled
	h, tg := rt.RouteName, rt.TagService
	converged := live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"), rt.HeadlessService(tg), rt.Slice(tg, ipv4, "10.0.0.7"))

	reported := warning{ForeignEndpointSlice, `EndpointSlice "hello-forged" (managed by "endpointslice-controller.k8s.io") is labelled with Service "hello" of Route "hello" and adds 198.51.100.9 to its name while the Service is headless; it is not the Route's and is left alone`}.key()

	table := TableTest{{
		Name:    "a slice claiming the EndpointSlice controller serves the Route's name: reported, left alone",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbIP, append(converged, foreignSlice("hello-forged", h, sliceController, "198.51.100.9", "198.51.100.10"))...),
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, ForeignEndpointSlice,
				`EndpointSlice "hello-forged" (managed by "endpointslice-controller.k8s.io") is labelled with Service "hello" of Route "hello" and adds 198.51.100.9, 198.51.100.10 to its name while the Service is headless; it is not the Route's and is left alone`),
		},
	}, {
		Name:    "a slice with no managed-by on a tag's name: reported, left alone",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbIP, append(converged, foreignSlice(tg+"-x", tg, "", "198.51.100.11"))...),
		WantEvents: []string{
			Eventf(corev1.EventTypeWarning, ForeignEndpointSlice,
				`EndpointSlice "%s-x" (no managed-by label) is labelled with Service %q of Route "hello" and adds 198.51.100.11 to its name while the Service is headless; it is not the Route's and is left alone`, tg, tg),
		},
	}, {
		Name:    "already reported: nothing recorded again",
		Key:     key,
		Ctx:     withWarned(withMode(es, on), reported),
		Objects: base(route, lbIP, append(converged, foreignSlice("hello-forged", h, sliceController, "198.51.100.9"))...),
	}, {
		Name:    "a slice of the EndpointSlice controller for another Service: not ours to report",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbIP, append(converged, foreignSlice("other-abcde", "other", sliceController, "10.1.2.3"))...),
	}}

	table.Test(t, recording(factory()))
}

// TestStripForeign keeps of a foreign slice what is reported about it,
// and strips it the same way twice; of a slice its Service controls, only
// its key.
func TestStripForeign(t *testing.T) {
	in := foreignSlice("hello-forged", "hello", sliceController, "198.51.100.9", "198.51.100.10")
	in.Labels["app"] = "hello"
	in.UID = "uid-1"
	in.ResourceVersion = "7"
	in.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: "hello"}}
	in.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	in.Endpoints[0].Hostname = ptr.To("a")
	in.Ports = []discoveryv1.EndpointPort{{Name: ptr.To("http")}}

	got, err := StripForeign(in)
	if err != nil {
		t.Fatal(err)
	}
	s := got.(*discoveryv1.EndpointSlice)
	want := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: rt.Namespace, Name: "hello-forged", UID: "uid-1", ResourceVersion: "7",
			Labels: map[string]string{discoveryv1.LabelServiceName: "hello", discoveryv1.LabelManagedBy: sliceController},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"198.51.100.9", "198.51.100.10"}}},
	}
	if !equality.Semantic.DeepEqual(s, want) {
		t.Errorf("StripForeign = %+v, want %+v", s, want)
	}
	again, _ := StripForeign(s)
	if !equality.Semantic.DeepEqual(again, want) {
		t.Errorf("StripForeign twice = %+v, want %+v", again, want)
	}
	if o, _ := StripForeign(&corev1.Service{}); o == nil {
		t.Error("StripForeign of a Service returned nil, want it unchanged")
	}

	// Controlled by the Service it serves: its key only.
	in.OwnerReferences[0].Controller = ptr.To(true)
	got, _ = StripForeign(in)
	key := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: rt.Namespace, Name: "hello-forged", ResourceVersion: "7"}}
	if !equality.Semantic.DeepEqual(got, key) {
		t.Errorf("StripForeign of a slice its Service controls = %+v, want %+v", got, key)
	}
}

// TestForeignSliceSelector selects every slice but ours and the mirroring
// controller's, among those that serve a Service.
func TestForeignSliceSelector(t *testing.T) {
	sel, err := labels.Parse(ForeignSliceSelector)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		labels map[string]string
		want   bool
	}{
		{map[string]string{discoveryv1.LabelServiceName: "a", discoveryv1.LabelManagedBy: sliceController}, true},
		{map[string]string{discoveryv1.LabelServiceName: "a", discoveryv1.LabelManagedBy: "someone"}, true},
		{map[string]string{discoveryv1.LabelServiceName: "a"}, true},
		{map[string]string{discoveryv1.LabelServiceName: "a", discoveryv1.LabelManagedBy: names.ManagedBy}, false},
		{map[string]string{discoveryv1.LabelServiceName: "a", discoveryv1.LabelManagedBy: names.MirroredBy}, false},
		{map[string]string{discoveryv1.LabelManagedBy: sliceController}, false},
	} {
		if got := sel.Matches(labels.Set(c.labels)); got != c.want {
			t.Errorf("%s matches %v = %v, want %v", ForeignSliceSelector, c.labels, got, c.want)
		}
	}
}

// BenchmarkForeignCache reports what the informer of ForeignSliceSelector
// holds per slice of kube-controller-manager's EndpointSlice controller (a
// Revision's private Service with no pod, as serving's are when scaled to
// zero), in a store with the informer's indexes: as StripForeign leaves
// it, as it would leave a foreign slice (the same without its owner), and
// whole (its managedFields dropped, as the factory's transform does).
func BenchmarkForeignCache(b *testing.B) {
	const n = 10000
	slice := func(i int) *discoveryv1.EndpointSlice {
		svc := fmt.Sprintf("hello-%05d-private", i)
		return &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: fmt.Sprintf("ns-%03d", i%100), Name: svc + "-x7k2p",
				UID: k8stypes.UID(fmt.Sprintf("6f1c2d3e-0000-4000-8000-%012d", i)), ResourceVersion: strconv.Itoa(100000 + i),
				Labels: map[string]string{
					discoveryv1.LabelServiceName: svc, discoveryv1.LabelManagedBy: sliceController,
					"app": fmt.Sprintf("hello-%05d", i), "serving.knative.dev/configuration": "hello",
					"serving.knative.dev/configurationGeneration": "1", "serving.knative.dev/configurationUID": "0c9a1f6e-5b7d-4c2a-9e3f-1a2b3c4d5e6f",
					"serving.knative.dev/revision": fmt.Sprintf("hello-%05d", i), "serving.knative.dev/revisionUID": "7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a",
					"serving.knative.dev/service": "hello", "serving.knative.dev/serviceUID": "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b",
					"networking.internal.knative.dev/serviceType": "Private", "endpointslice.kubernetes.io/managed-by-setup": "",
				},
				Annotations: map[string]string{"endpoints.kubernetes.io/last-change-trigger-time": "2026-12-06T20:00:00Z"},
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Service", Name: svc, UID: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
					Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
				}},
			},
			AddressType: discoveryv1.AddressTypeIPv4,
			Ports: []discoveryv1.EndpointPort{
				{Name: ptr.To("http"), Port: ptr.To[int32](8012), Protocol: ptr.To(corev1.ProtocolTCP)},
				{Name: ptr.To("https"), Port: ptr.To[int32](8112), Protocol: ptr.To(corev1.ProtocolTCP)},
			},
		}
	}
	held := func(transform func(any) (any, error)) float64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		if err := IndexSlices(idx); err != nil {
			b.Fatal(err)
		}
		for i := range n {
			o, err := transform(slice(i))
			if err != nil {
				b.Fatal(err)
			}
			if err := idx.Add(o); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(idx)
		return float64(after.HeapAlloc-before.HeapAlloc) / n
	}
	for range b.N {
		b.ReportMetric(held(StripForeign), "B/controlled-slice")
		b.ReportMetric(held(func(o any) (any, error) {
			o.(*discoveryv1.EndpointSlice).OwnerReferences = nil
			return StripForeign(o)
		}), "B/foreign-slice")
		b.ReportMetric(held(func(o any) (any, error) { return o, nil }), "B/whole-slice")
	}
}

// withWarned is withMode with warnings already reported for the Route.
func withWarned(ctx context.Context, events ...string) context.Context {
	return context.WithValue(ctx, warnedKey{}, events)
}
