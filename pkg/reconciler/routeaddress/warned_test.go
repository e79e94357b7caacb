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

	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestWarnedRepeat: a Warning that still applies is recorded again once
// repeatTTL has passed, not before.
func TestWarnedRepeat(t *testing.T) {
	now := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	w := newWarned()
	w.clock = now
	route := types.NamespacedName{Namespace: "ns", Name: "r"}
	if got := w.filter(route, []string{"x"}); len(got) != 1 {
		t.Fatalf("first time: recorded %v, want [x]", got)
	}
	now.SetTime(now.Now().Add(repeatTTL - time.Second))
	if got := w.filter(route, []string{"x"}); len(got) != 0 {
		t.Fatalf("before repeatTTL: recorded %v, want nothing", got)
	}
	now.SetTime(now.Now().Add(time.Second))
	if got := w.filter(route, []string{"x"}); len(got) != 1 {
		t.Fatalf("at repeatTTL: recorded %v, want [x]", got)
	}
}

// TestWarnedForget: a deleted Route's Warnings are dropped, so that a Route
// of the same name has them recorded again.
func TestWarnedForget(t *testing.T) {
	route := types.NamespacedName{Namespace: "ns", Name: "r"}
	w := newWarned()
	w.seed(route, []string{"x"})
	if got := w.filter(route, []string{"x"}); len(got) != 0 {
		t.Errorf("a seeded Warning was recorded again: %v", got)
	}
	w.forget(route)
	if got := w.filter(route, []string{"x"}); len(got) != 1 {
		t.Errorf("after forget: recorded %v, want [x]", got)
	}
}
