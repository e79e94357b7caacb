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
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"knative.dev/serving/pkg/apis/serving"
)

// TestRouteIndex: a Route's Services are read by its label, in its
// namespace only, whatever else the namespace holds; adding the index twice
// (a shared informer) is no error.
func TestRouteIndex(t *testing.T) {
	svc := func(ns, name, route string) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		if route != "" {
			s.Labels = map[string]string{serving.RouteLabelKey: route}
		}
		return s
	}
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for range 2 {
		if err := IndexByRoute(idx); err != nil {
			t.Fatal("IndexByRoute:", err)
		}
	}
	for _, s := range []*corev1.Service{
		svc("ns", "hello", "hello"), svc("ns", "canary-hello", "hello"),
		svc("ns", "other", "other"), svc("ns", "unlabelled", ""), svc("elsewhere", "hello", "hello"),
	} {
		if err := idx.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	// Objects of another type in the same store are not returned.
	if err := idx.Add(&corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ep", Labels: map[string]string{serving.RouteLabelKey: "hello"}}}); err != nil {
		t.Fatal(err)
	}

	got, err := byRoute[*corev1.Service](idx, "ns", "hello")
	if err != nil {
		t.Fatal("byRoute:", err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Namespace+"/"+s.Name)
	}
	slices.Sort(names)
	if want := []string{"ns/canary-hello", "ns/hello"}; !slices.Equal(names, want) {
		t.Errorf("byRoute = %v, want %v", names, want)
	}

	if keys, err := routeIndexFunc("not an object"); err != nil || keys != nil {
		t.Errorf("routeIndexFunc(string) = %v, %v, want nothing", keys, err)
	}
}

// BenchmarkActual reads one Route's objects (a Route with one tag) in a
// namespace holding others Routes with a tag each: through the Route
// index, and by listing the namespace with a label selector as before.
func BenchmarkActual(b *testing.B) {
	for _, others := range []int{0, 1000, 10000} {
		idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		if err := IndexByRoute(idx); err != nil {
			b.Fatal(err)
		}
		for i := range others + 1 {
			route := fmt.Sprintf("r%d", i)
			for _, name := range []string{route, "tag-" + route} {
				s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{serving.RouteLabelKey: route}}}
				if err := idx.Add(s); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.Run(fmt.Sprintf("others=%d/index", others), func(b *testing.B) {
			for b.Loop() {
				if got, _ := byRoute[*corev1.Service](idx, "ns", "r0"); len(got) != 2 {
					b.Fatalf("got %d Services, want 2", len(got))
				}
			}
		})
		b.Run(fmt.Sprintf("others=%d/namespace-list", others), func(b *testing.B) {
			lister := corev1listers.NewServiceLister(idx)
			sel := labels.SelectorFromSet(labels.Set{serving.RouteLabelKey: "r0"})
			for b.Loop() {
				if got, _ := lister.Services("ns").List(sel); len(got) != 2 {
					b.Fatalf("got %d Services, want 2", len(got))
				}
			}
		})
	}
}
