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
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"knative.dev/pkg/logging"
)

func TestTerminatingLogsOncePerNamespace(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	ctx := logging.WithLogger(context.Background(), zap.New(core).Sugar())
	err := namespaceTerminating(terminatingErr("services", "hello"))
	if !errors.Is(err, errNamespaceTerminating) {
		t.Fatalf("namespaceTerminating(%v) is not errNamespaceTerminating", err)
	}
	if other := errors.New("other"); namespaceTerminating(other) != other {
		t.Errorf("namespaceTerminating changed an error without the cause")
	}
	if namespaceTerminating(nil) != nil {
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
