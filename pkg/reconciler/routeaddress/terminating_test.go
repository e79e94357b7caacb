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
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"knative.dev/pkg/logging"

	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

func TestTerminatingLogsOncePerNamespace(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	ctx := logging.WithLogger(context.Background(), zap.New(core).Sugar())
	err := namespaceTerminating(terminatingErr("services", "hello"))
	if !errors.Is(err, errNamespaceTerminating) {
		t.Fatalf("namespaceTerminating(%v) is not errNamespaceTerminating", err)
	}
	if other := errors.New("other"); !errors.Is(namespaceTerminating(other), other) || errors.Is(namespaceTerminating(other), errNamespaceTerminating) {
		t.Errorf("namespaceTerminating changed an error without the cause")
	}
	if err := namespaceTerminating(nil); err != nil {
		t.Errorf("namespaceTerminating(nil) != nil")
	}

	tm := newTerminating()
	for range 3 {
		tm.dropped(ctx, "a", err)
		tm.dropped(ctx, "b", err)
	}
	tm.wrote("c")
	tm.dropped(ctx, "a", err)
	tm.wrote("a") // a namespace of that name made again
	tm.dropped(ctx, "a", err)
	var got []string
	for _, e := range logs.All() {
		got = append(got, e.Message)
	}
	want := []string{
		"Namespace a is terminating: writes there are dropped, not retried",
		"Namespace b is terminating: writes there are dropped, not retried",
		"Namespace a is terminating: writes there are dropped, not retried",
	}
	if len(got) != len(want) {
		t.Fatalf("logged %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// terminatingErr is the apiserver's answer to a create in a namespace that
// is being deleted (the NamespaceLifecycle admission plugin's).
func terminatingErr(resource, name string) error {
	err := apierrs.NewForbidden(schema.GroupResource{Resource: resource}, name,
		fmt.Errorf("unable to create new content in namespace %s because it is being terminated", rt.Namespace))
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    corev1.NamespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", rt.Namespace),
		Field:   "metadata.namespace",
	})
	return err
}
