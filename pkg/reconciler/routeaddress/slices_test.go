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
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/client-go/tools/cache"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// sliceStore is a slice informer's store as the controller indexes it,
// holding our slices for route and for others other Routes (one name
// each) in the same namespace.
func sliceStore(tb testing.TB, others int) (cache.Indexer, []*resources.Placeholder) {
	tb.Helper()
	ctx := rt.WithRouteConfig(context.Background())
	route := rt.Route(true)
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{sliceIndex: sliceIndexFunc, cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	cfg := &netcfg.Config{RouteAddressMode: netcfg.RouteAddressModeEndpointSlices, RouteAddressExternalNameFallback: netcfg.RouteAddressFallbackEnabled}
	add := func(a *resources.Addressing) {
		for _, s := range a.Slices {
			if err := idx.Add(s); err != nil {
				tb.Fatal(err)
			}
		}
	}
	phs, err := resources.Placeholders(ctx, route, resources.TargetTags(route))
	if err != nil {
		tb.Fatal(err)
	}
	for _, ph := range phs {
		a, err := resources.MakeAddressing(ctx, route, ph, false, resources.Source{
			Ingress: rt.Ingress(route, rt.IP("10.0.0.7")), Network: cfg, Resolver: resources.NewResolver(rt.ServiceLister()),
		})
		if err != nil {
			tb.Fatal(err)
		}
		add(a)
	}
	for i := range others {
		other := rt.Route(false)
		other.Name = fmt.Sprintf("other-%d", i)
		other.UID = "uid-" + other.UID
		o, err := resources.Placeholders(ctx, other, []string{""})
		if err != nil {
			tb.Fatal(err)
		}
		a, err := resources.MakeAddressing(ctx, other, o[0], false, resources.Source{
			Ingress: rt.Ingress(other, rt.IP("10.0.0.7")), Network: cfg, Resolver: resources.NewResolver(rt.ServiceLister()),
		})
		if err != nil {
			tb.Fatal(err)
		}
		add(a)
	}
	return idx, phs
}

// TestRouteSlicesScoped: a reconcile reads the Route's slices and those of
// its wanted names, never another Route's.
func TestRouteSlicesScoped(t *testing.T) {
	idx, phs := sliceStore(t, 50)
	wanted := []string{phs[0].Service.Name, phs[1].Service.Name}
	got, err := routeSlices(idx, rt.Namespace, rt.RouteName, wanted)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	if want := []string{rt.TagService + "-ipv4", rt.RouteName + "-ipv4"}; !slices.Equal(names, want) {
		t.Errorf("routeSlices() = %v, want %v", names, want)
	}

	// A slice of a wanted name that lost the Route label is still read.
	s := got[0].DeepCopy()
	delete(s.Labels, "serving.knative.dev/route")
	if err := idx.Update(s); err != nil {
		t.Fatal(err)
	}
	if got, _ := routeSlices(idx, rt.Namespace, rt.RouteName, wanted); len(got) != 2 {
		t.Errorf("after the Route label was removed: %d slices, want 2", len(got))
	}
	if got, _ := routeSlices(idx, rt.Namespace, rt.RouteName, nil); len(got) != 1 {
		t.Errorf("by the Route label alone: %d slices, want 1", len(got))
	}
	if got, _ := routeSlices(idx, corev1.NamespaceDefault+"-other", rt.RouteName, wanted); len(got) != 0 {
		t.Errorf("another namespace: %d slices, want 0", len(got))
	}
}

// BenchmarkRouteSlices reads one Route's slices from a namespace with
// others other Routes' slices: the cost must not grow with others (a
// namespace-wide list made a namespace's resync quadratic in its Routes).
func BenchmarkRouteSlices(b *testing.B) {
	for _, others := range []int{0, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("others=%d", others), func(b *testing.B) {
			idx, phs := sliceStore(b, others)
			wanted := []string{phs[0].Service.Name, phs[1].Service.Name}
			b.ReportAllocs()
			for b.Loop() {
				if got, err := routeSlices(idx, rt.Namespace, rt.RouteName, wanted); err != nil || len(got) != 2 {
					b.Fatal(len(got), err)
				}
			}
		})
	}
	// What the reconciler did before the index: list every slice of ours
	// in the namespace, then keep the Route's.
	for _, others := range []int{0, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("namespace-list/others=%d", others), func(b *testing.B) {
			idx, _ := sliceStore(b, others)
			b.ReportAllocs()
			for b.Loop() {
				objs, err := idx.ByIndex(cache.NamespaceIndex, rt.Namespace)
				if err != nil || len(objs) != others+2 {
					b.Fatal(len(objs), err)
				}
				n := 0
				for _, o := range objs {
					if o.(*discoveryv1.EndpointSlice).Labels["serving.knative.dev/route"] == rt.RouteName {
						n++
					}
				}
				if n != 2 {
					b.Fatal(n)
				}
			}
		})
	}
}
