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
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	apierrs "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"knative.dev/pkg/controller"
)

func TestTransient(t *testing.T) {
	endpoints := schema.GroupResource{Resource: "endpoints"}
	restMapping := apierrs.NewForbidden(endpoints, "hello", errors.New(`cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: cannot find RESTMapping for APIVersion serving.knative.dev/v1 Kind Route: no matches for kind "Route" in version "serving.knative.dev/v1"`))
	rbac := apierrs.NewForbidden(endpoints, "hello", errors.New(`cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: User "x" cannot update resource "routes/finalizers"`))
	wrap := func(err error) error { return fmt.Errorf("failed to create Endpoints %q: %w", "hello", err) }
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"429", wrap(apierrs.NewTooManyRequests("slow down", 1)), true},
		{"503", wrap(apierrs.NewServiceUnavailable("starting")), true},
		{"500", wrap(apierrs.NewInternalError(errors.New("etcd"))), true},
		{"504", wrap(apierrs.NewTimeoutError("slow", 1)), true},
		{"502", wrap(apierrs.NewGenericServerResponse(502, "create", endpoints, "hello", "", 0, false)), true},
		{"connection refused", wrap(&dialError{syscall.ECONNREFUSED}), true},
		{"the admission plugin's RESTMapper does not know Routes yet", wrap(restMapping), true},
		{"RBAC refuses blockOwnerDeletion", wrap(rbac), false},
		{"invalid", wrap(apierrs.NewInvalid(schema.GroupKind{Kind: "Endpoints"}, "hello", nil)), false},
		{"already exists", wrap(apierrs.NewAlreadyExists(endpoints, "hello")), false},
		{"all transient", errors.Join(wrap(apierrs.NewTooManyRequests("", 1)), wrap(restMapping)), true},
		{"one not", errors.Join(wrap(apierrs.NewTooManyRequests("", 1)), wrap(rbac)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := transient(tc.err); got != tc.want {
				t.Errorf("transient(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// dialError is a syscall error wrapped as net.OpError wraps it.
type dialError struct{ errno syscall.Errno }

func (e *dialError) Error() string { return "dial tcp 127.0.0.1:6443: " + e.errno.Error() }
func (e *dialError) Unwrap() error { return e.errno }

// TestRetry: a transient failure requeues the Route after its own delay,
// doubling with each failure in a row up to retryMax, for retryAttempts
// failures in a row, after which the error is returned; success resets
// it; any other error is returned as it is.
func TestRetry(t *testing.T) {
	c := &Reconciler{retries: newRetries()}
	ctx := context.Background()
	key := types.NamespacedName{Namespace: "ns", Name: "hello"}
	busy := apierrs.NewTooManyRequests("slow down", 1)
	delay := func(err error) time.Duration {
		t.Helper()
		ok, d := controller.IsRequeueKey(err)
		if !ok {
			t.Fatalf("retry returned %v, want a requeue", err)
		}
		return d
	}
	var got []time.Duration
	for range 6 {
		got = append(got, delay(c.retry(ctx, key, busy)))
	}
	want := []time.Duration{retryBase, 2 * retryBase, 4 * retryBase, retryMax, retryMax, retryMax}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("delays = %v, want %v", got, want)
	}
	for range retryAttempts - len(got) {
		delay(c.retry(ctx, key, busy))
	}
	if err := c.retry(ctx, key, busy); !errors.Is(err, busy) {
		t.Errorf("retry after %d failures in a row = %v, want the error returned", retryAttempts, err)
	}
	if err := c.retry(ctx, key, nil); err != nil {
		t.Errorf("retry(nil) = %v", err)
	}
	if d := delay(c.retry(ctx, key, busy)); d != retryBase {
		t.Errorf("delay after a success = %v, want %v", d, retryBase)
	}
	other := errors.New("invalid")
	if err := c.retry(ctx, key, other); !errors.Is(err, other) {
		t.Errorf("retry(%v) = %v, want it returned as it is", other, err)
	}
}
