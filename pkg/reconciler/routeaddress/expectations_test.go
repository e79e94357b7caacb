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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
)

type cachedObject struct {
	rv  string
	uid types.UID
}

type fakeCache map[string]cachedObject

func (f fakeCache) lookup(kind plan.Kind, name string) (string, types.UID, bool) {
	o, ok := f[string(kind)+"/"+name]
	return o.rv, o.uid, ok
}

func TestExpectations(t *testing.T) {
	now := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	e := newExpectations()
	e.clock = now
	route := types.NamespacedName{Namespace: "ns", Name: "r"}
	svc := func(name, rv string, uid types.UID) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv, UID: uid}}
	}
	cache := fakeCache{}

	if !e.satisfied(route, cache.lookup) {
		t.Fatal("nothing written, yet not satisfied")
	}
	e.wrote(route, plan.Op{Verb: plan.Create, Kind: plan.KindService, Object: svc("a", "", "")})
	e.wrote(route, plan.Op{Verb: plan.Update, Kind: plan.KindService, Object: svc("b", "5", "uid-b")})
	e.wrote(route, plan.Op{Verb: plan.Delete, Kind: plan.KindService, Object: svc("c", "7", "uid-c")})
	cache["Service/b"] = cachedObject{"5", "uid-b"}
	cache["Service/c"] = cachedObject{"7", "uid-c"}

	if e.satisfied(route, cache.lookup) {
		t.Fatal("satisfied with a stale cache")
	}
	cache["Service/a"] = cachedObject{"1", "uid-a"}
	cache["Service/b"] = cachedObject{"6", "uid-b"}
	if e.satisfied(route, cache.lookup) {
		t.Fatal("satisfied while the deleted Service is still cached")
	}
	// Recreated under the same name: a new UID is not the deleted object.
	cache["Service/c"] = cachedObject{"9", "uid-c2"}
	if !e.satisfied(route, cache.lookup) {
		t.Fatal("not satisfied once the cache caught up")
	}

	// A write the cache never shows stops blocking after the ttl.
	e.wrote(route, plan.Op{Verb: plan.Create, Kind: plan.KindService, Object: svc("gone", "", "")})
	if e.satisfied(route, cache.lookup) {
		t.Fatal("satisfied before the ttl")
	}
	now.SetTime(now.Now().Add(30 * time.Second))
	if e.satisfied(route, cache.lookup) {
		t.Fatal("satisfied at the ttl (30 s), want still blocked")
	}
	now.SetTime(now.Now().Add(time.Second))
	if !e.satisfied(route, cache.lookup) {
		t.Fatal("still blocked after the ttl")
	}
}

// TestExpectationsOneWrite: each kind of write alone, against each state of
// the cache.
func TestExpectationsOneWrite(t *testing.T) {
	route := types.NamespacedName{Namespace: "ns", Name: "r"}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "5", UID: "uid-a"}}
	tests := []struct {
		name  string
		verb  plan.Verb
		cache fakeCache
		want  bool
	}{
		{"created, not cached yet", plan.Create, fakeCache{}, false},
		{"created, cached", plan.Create, fakeCache{"Service/a": {"6", "uid-a"}}, true},
		{"updated, cache still at the old version", plan.Update, fakeCache{"Service/a": {"5", "uid-a"}}, false},
		{"updated, cache at a newer version", plan.Update, fakeCache{"Service/a": {"6", "uid-a"}}, true},
		{"updated, gone from the cache", plan.Update, fakeCache{}, true},
		{"deleted, still cached", plan.Delete, fakeCache{"Service/a": {"5", "uid-a"}}, false},
		{"deleted, gone from the cache", plan.Delete, fakeCache{}, true},
		{"deleted, another object of its name cached", plan.Delete, fakeCache{"Service/a": {"7", "uid-a2"}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newExpectations()
			e.wrote(route, plan.Op{Verb: tc.verb, Kind: plan.KindService, Object: svc})
			if got := e.satisfied(route, tc.cache.lookup); got != tc.want {
				t.Errorf("satisfied = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestForget: a deleted Route's expectations are dropped, so that a Route
// of the same name starts afresh.
func TestForget(t *testing.T) {
	route := types.NamespacedName{Namespace: "ns", Name: "r"}
	e := newExpectations()
	e.wrote(route, plan.Op{Verb: plan.Create, Kind: plan.KindService, Object: &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "r"}}})
	if e.satisfied(route, fakeCache{}.lookup) {
		t.Fatal("satisfied before the informer showed the write")
	}
	e.forget(route)
	if !e.satisfied(route, fakeCache{}.lookup) {
		t.Error("not satisfied after forget")
	}
}
