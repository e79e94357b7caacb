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
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"knative.dev/serving/pkg/apis/serving"

	"knative.dev/route-address/pkg/reconciler/routeaddress"
)

// TestRouteIndexedLister: the lister handed to the route reconciler
// answers every selector as the informer's own lister does, and reads the
// Route index for a selector that requires a Route label.
func TestRouteIndexedLister(t *testing.T) {
	svc := func(ns, name string, l map[string]string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: l}}
	}
	newIndexer := func(withRouteIndex bool) cache.Indexer {
		idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		if withRouteIndex {
			if err := routeaddress.IndexByRoute(idx); err != nil {
				t.Fatal(err)
			}
		}
		for _, s := range []*corev1.Service{
			svc("ns", "hello", map[string]string{serving.RouteLabelKey: "hello", "app": "a"}),
			svc("ns", "canary-hello", map[string]string{serving.RouteLabelKey: "hello"}),
			svc("ns", "other", map[string]string{serving.RouteLabelKey: "other", "app": "a"}),
			svc("ns", "plain", nil),
			svc("elsewhere", "hello", map[string]string{serving.RouteLabelKey: "hello"}),
		} {
			if err := idx.Add(s); err != nil {
				t.Fatal(err)
			}
		}
		return idx
	}
	names := func(svcs []*corev1.Service) []string {
		var out []string
		for _, s := range svcs {
			out = append(out, s.Name)
		}
		slices.Sort(out)
		return out
	}
	idx := newIndexer(true)
	plain := corev1listers.NewServiceLister(idx).Services("ns")
	indexed := routeIndexedLister{ServiceLister: corev1listers.NewServiceLister(idx), idx: idx}.Services("ns")
	for _, sel := range []labels.Selector{
		labels.SelectorFromSet(labels.Set{serving.RouteLabelKey: "hello"}),
		labels.SelectorFromSet(labels.Set{serving.RouteLabelKey: "hello", "app": "a"}),
		labels.SelectorFromSet(labels.Set{serving.RouteLabelKey: "missing"}),
		labels.SelectorFromSet(labels.Set{"app": "a"}),
		labels.Everything(),
	} {
		want, err := plain.List(sel)
		if err != nil {
			t.Fatal(err)
		}
		got, err := indexed.List(sel)
		if err != nil {
			t.Fatalf("List(%s): %v", sel, err)
		}
		if !slices.Equal(names(got), names(want)) {
			t.Errorf("List(%s) = %v, want %v", sel, names(got), names(want))
		}
	}

	// Without the index a Route selector fails: it is what is read.
	noIndex := newIndexer(false)
	l := routeIndexedLister{ServiceLister: corev1listers.NewServiceLister(noIndex), idx: noIndex}.Services("ns")
	if _, err := l.List(labels.SelectorFromSet(labels.Set{serving.RouteLabelKey: "hello"})); err == nil {
		t.Error("List with a Route selector and no Route index: no error, want the index to be read")
	}
	if got, err := l.List(labels.SelectorFromSet(labels.Set{"app": "a"})); err != nil || len(got) != 2 {
		t.Errorf("List without a Route selector and no Route index = %v, %v; want the namespace's two", names(got), err)
	}
}
