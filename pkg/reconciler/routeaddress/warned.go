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
)

// warned remembers, per Route, the Warnings about its state (unresolvable
// or missing load balancers, objects it does not control) last recorded,
// so that a resync of an unchanged Route records none. A Warning is
// recorded when it is new, and again once repeatTTL has passed (events
// expire from the apiserver after an hour by default); one that stops
// applying is forgotten, so it is recorded again if it comes back.
type warned struct {
	mu    sync.Mutex
	m     map[types.NamespacedName]map[string]time.Time
	clock clock.PassiveClock
}

// repeatTTL is how long a Warning that still applies is not repeated.
const repeatTTL = time.Hour

func newWarned() *warned {
	return &warned{m: map[types.NamespacedName]map[string]time.Time{}, clock: clock.RealClock{}}
}

// filter returns the Warnings (each "reason message") of this reconcile that
// must be recorded, and remembers all of them as the Route's current ones.
func (w *warned) filter(route types.NamespacedName, current []string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.clock.Now()
	last := w.m[route]
	var out []string
	next := make(map[string]time.Time, len(current))
	for _, c := range current {
		if at, ok := last[c]; ok && now.Sub(at) < repeatTTL {
			next[c] = at
			continue
		}
		if _, dup := next[c]; !dup {
			out = append(out, c)
		}
		next[c] = now
	}
	if len(next) == 0 {
		delete(w.m, route)
	} else {
		w.m[route] = next
	}
	return out
}

// seed records Warnings as just reported (tests).
func (w *warned) seed(route types.NamespacedName, events []string) {
	w.filter(route, events)
}

// forget drops what is remembered of the Route (it was deleted).
func (w *warned) forget(route types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m, route)
}
