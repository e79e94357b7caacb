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
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1listers "k8s.io/client-go/listers/core/v1"
	clientgotesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"knative.dev/pkg/controller"

	. "knative.dev/pkg/reconciler/testing"
	servinglisters "knative.dev/serving/pkg/client/listers/serving/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// annotated is the Routes' Namespace with a route-address-mode annotation.
func annotated(mode string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:        rt.Namespace,
		Annotations: map[string]string{netcfg.RouteAddressModeAnnotationKey: mode},
	}}
}

// TestReconcileNamespaceMode: a Namespace's annotation gives its Routes
// their mode, over config-network's; a value that is not a mode leaves
// config-network's and is a Warning on the Route.
func TestReconcileNamespaceMode(t *testing.T) {
	untagged, tagged := rt.Route(false), rt.Route(true)
	es, en := netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeExternalName
	on := netcfg.RouteAddressFallbackEnabled
	h := rt.RouteName
	upstream := live(routeReconcilerObjects(untagged, lbInternal)...)
	headless := live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.96.100.10"))

	table := TableTest{{
		Name:           "config-network's ExternalName, the Namespace's EndpointSlices: the Route switches",
		Key:            key,
		Ctx:            withMode(en, on),
		Objects:        append(base(untagged, lbInternal, upstream...), annotated("EndpointSlices")),
		WantCreates:    []runtime.Object{bound(rt.Slice(h, ipv4, "10.96.100.10"))},
		WantUpdates:    []clientgotesting.UpdateActionImpl{updateOf(headlessFrom(liveOne(routeReconcilerObjects(untagged, lbInternal)[0].(*corev1.Service)), rt.HeadlessService(h)))},
		WantEvents:     []string{created(plan.KindEndpointSlice, h+"-ipv4")},
		PostConditions: []func(*testing.T, *TableRow){inOrder("create endpointslices hello-ipv4", "update services hello")},
	}, {
		Name:    "config-network's EndpointSlices, the Namespace's ExternalName: the route reconciler's Service is left alone",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: append(base(untagged, lbInternal, upstream...), annotated("externalname")),
	}, {
		Name:       "an annotation that is not a mode, the names headless as config-network's EndpointSlices has them: nothing is written, a Warning",
		Key:        key,
		Ctx:        withMode(es, on),
		Objects:    append(base(untagged, lbInternal, headless...), annotated("endpointslice")),
		WantEvents: []string{invalidAnnotation("endpointslice", es)},
	}, {
		// A namespace held back, its annotation edited into a typo: the
		// cluster's mode would switch it.
		Name:       "an annotation that is not a mode, the names ExternalName, config-network's EndpointSlices: nothing is written",
		Key:        key,
		Ctx:        withMode(es, on),
		Objects:    append(base(untagged, lbInternal, upstream...), annotated("externalnam")),
		WantEvents: []string{invalidAnnotation("externalnam", es)},
	}, {
		// A namespace staged ahead, its annotation edited into a typo: the
		// cluster's mode would send it back.
		Name:       "an annotation that is not a mode, the names headless, config-network's ExternalName: nothing is written",
		Key:        key,
		Ctx:        withMode(en, on),
		Objects:    append(base(untagged, lbInternal, headless...), annotated("endpointslice")),
		WantEvents: []string{invalidAnnotation("endpointslice", en)},
	}, {
		Name:    "an annotation that is not a mode: a name without a Service gets config-network's mode, the others stay",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: append(base(tagged, lbInternal, upstream...), annotated("endpointslice")),
		WantCreates: []runtime.Object{
			rt.HeadlessService(rt.TagService), rt.Slice(rt.TagService, ipv4, "10.96.100.10"),
		},
		WantEvents: []string{
			invalidAnnotation("endpointslice", es),
			done("Created", obj(plan.KindService, rt.TagService), obj(plan.KindEndpointSlice, rt.TagService+"-ipv4")),
		},
	}, {
		Name:    "an empty annotation: config-network's mode",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: append(base(untagged, lbInternal, headless...), annotated("")),
	}}
	table.Test(t, recording(factory()))
}

// invalidAnnotation is the Warning on the Namespace whose annotation has
// value, with config-network's mode.
func invalidAnnotation(value string, mode netcfg.RouteAddressMode) string {
	return Eventf(corev1.EventTypeWarning, InvalidModeAnnotation,
		`annotation %s with value: %q is not supported, allowed values are externalname, endpoints, endpointslices, endpointsandslices; `+
			`the Services, Endpoints and EndpointSlices of the Routes in Namespace %q are left as they are, and names that have no Service get config-network's route-address-mode %q, until the annotation is a mode or is removed`,
		netcfg.RouteAddressModeAnnotationKey, value, rt.Namespace, mode)
}

// TestOnNamespaceMode: a change of the annotation enqueues the Namespace's
// Routes, and only then.
func TestOnNamespaceMode(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, ns := range []string{"a", "b"} {
		for _, name := range []string{"r1", "r2"} {
			r := rt.Route(false)
			r.Namespace, r.Name = ns, name
			if err := idx.Add(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	nsWith := func(name, mode string) *corev1.Namespace {
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{"other": "x"}}}
		if mode != "" {
			n.Annotations[netcfg.RouteAddressModeAnnotationKey] = mode
		}
		return n
	}
	for _, tc := range []struct {
		name     string
		old, new *corev1.Namespace
		want     []string
	}{
		{"annotated", nsWith("a", ""), nsWith("a", "endpointslices"), []string{"a/r1", "a/r2"}},
		{"changed", nsWith("b", "endpointslices"), nsWith("b", "externalname"), []string{"b/r1", "b/r2"}},
		{"removed", nsWith("a", "endpointslices"), nsWith("a", ""), []string{"a/r1", "a/r2"}},
		{"unchanged", nsWith("a", "endpointslices"), nsWith("a", "endpointslices"), nil},
		{"another annotation", nsWith("a", ""), func() *corev1.Namespace { n := nsWith("a", ""); n.Annotations["other"] = "y"; return n }(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := sets.New[string]()
			h := OnNamespaceMode(servinglisters.NewRouteLister(idx), func(obj interface{}) {
				k, _ := cache.MetaNamespaceKeyFunc(obj)
				got.Insert(k)
			})
			h.OnUpdate(tc.old, tc.new)
			if !got.Equal(sets.New(tc.want...)) {
				t.Errorf("enqueued %v, want %v", sets.List(got), tc.want)
			}
		})
	}
}

// TestReportInvalidOnce: the Warning about a Namespace whose annotation is
// not a mode is recorded once for all its Routes' reconciles, and again
// for another value.
func TestReportInvalidOnce(t *testing.T) {
	recorder := record.NewFakeRecorder(10)
	ctx := controller.WithEventRecorder(context.Background(), recorder)
	c := &Reconciler{warned: newWarned()}
	n := &invalidNamespace{namespace: annotated("endpointslice"), message: "first"}
	for range 3 {
		c.reportInvalid(ctx, n)
	}
	c.reportInvalid(ctx, &invalidNamespace{namespace: annotated("externalnam"), message: "second"})
	close(recorder.Events)
	var got []string
	for e := range recorder.Events {
		got = append(got, e)
	}
	want := []string{"Warning InvalidModeAnnotation first", "Warning InvalidModeAnnotation second"}
	if !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
}

// TestInvalidModeNamespaces counts the Namespaces whose annotation is not
// a mode: not those without one, with a mode or with an empty value.
func TestInvalidModeNamespaces(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for i, a := range []map[string]string{
		nil,
		{netcfg.RouteAddressModeAnnotationKey: "EndpointSlices"},
		{netcfg.RouteAddressModeAnnotationKey: ""},
		{netcfg.RouteAddressModeAnnotationKey: "endpointslice"},
		{netcfg.RouteAddressModeAnnotationKey: "externalnam"},
	} {
		if err := idx.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("ns-", i), Annotations: a}}); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := invalidModeNamespaces(corev1listers.NewNamespaceLister(idx)); got != 2 || err != nil {
		t.Errorf("invalidModeNamespaces() = %d, %v; want 2", got, err)
	}
}
