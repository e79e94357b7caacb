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
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
)

// expectations remembers the writes made for each Route until the
// informers have seen them, so that a reconcile that runs on a stale cache
// (an event for one object arriving before the informer of another has
// caught up) does not plan the same write again. It is the
// ReplicaSet/EndpointSlice controllers' expectations idea, reduced to what
// our three kinds need.
type expectations struct {
	mu sync.Mutex
	m  map[types.NamespacedName][]expectation
	// ttl bounds how long a write is waited for (an object created and
	// deleted by someone else before our informer saw it).
	ttl   time.Duration
	clock clock.PassiveClock
}

type expectation struct {
	kind plan.Kind
	name string
	// created: the object must be in the cache.
	created bool
	// replacedRV: the cache must no longer hold this resourceVersion.
	replacedRV string
	// deletedUID: the cache must no longer hold an object with this UID.
	deletedUID types.UID
	at         time.Time
}

func newExpectations() *expectations {
	return &expectations{m: map[types.NamespacedName][]expectation{}, ttl: 30 * time.Second, clock: clock.RealClock{}}
}

// wrote records a successful operation for the Route.
func (e *expectations) wrote(route types.NamespacedName, op plan.Op) {
	x := expectation{kind: op.Kind, name: op.Name(), at: e.clock.Now()}
	switch op.Verb {
	case plan.Create:
		x.created = true
	case plan.Update:
		x.replacedRV = op.Object.GetResourceVersion()
	case plan.Delete:
		x.deletedUID = op.Object.GetUID()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.m[route] = append(e.m[route], x)
}

// cached returns the cached object of a kind and name, or nil.
type cached func(kind plan.Kind, name string) (resourceVersion string, uid types.UID, found bool)

// satisfied drops what the cache has caught up with and reports whether
// anything is still pending.
func (e *expectations) satisfied(route types.NamespacedName, lookup cached) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	pending := e.m[route][:0]
	for _, x := range e.m[route] {
		if e.clock.Now().Sub(x.at) > e.ttl {
			continue
		}
		rv, uid, found := lookup(x.kind, x.name)
		if x.created && !found ||
			x.replacedRV != "" && found && rv == x.replacedRV ||
			x.deletedUID != "" && found && uid == x.deletedUID {
			pending = append(pending, x)
		}
	}
	if len(pending) == 0 {
		delete(e.m, route)
		return true
	}
	e.m[route] = pending
	return false
}

// forget drops everything recorded for the Route.
func (e *expectations) forget(route types.NamespacedName) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.m, route)
}
