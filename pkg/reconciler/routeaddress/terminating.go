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
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"

	"knative.dev/pkg/logging"
)

// errNamespaceTerminating is a write refused because its namespace is
// being deleted. Like Kubernetes' EndpointSlice controller, the reconcile
// drops its work instead of retrying it: the namespace's deletion takes
// the Route and its objects away.
var errNamespaceTerminating = errors.New("namespace is terminating")

// namespaceTerminating wraps err in errNamespaceTerminating when the
// apiserver refused a write because its namespace is terminating.
func namespaceTerminating(err error) error {
	if apierrs.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
		return errors.Join(errNamespaceTerminating, err)
	}
	return err
}

// terminating remembers the namespaces whose deletion dropped a
// reconcile's writes, so that each is logged once, not once per Route and
// retry.
type terminating struct {
	mu sync.Mutex
	m  map[string]bool
}

func newTerminating() *terminating {
	return &terminating{m: map[string]bool{}}
}

// dropped logs, the first time only, that writes in ns are dropped.
func (t *terminating) dropped(ctx context.Context, ns string, err error) {
	t.mu.Lock()
	first := !t.m[ns]
	t.m[ns] = true
	t.mu.Unlock()
	if first {
		logging.FromContext(ctx).Infow("Namespace "+ns+" is terminating: writes there are dropped, not retried", "error", err)
	}
}

// wrote forgets ns once a write there succeeds (a namespace of that name
// made again).
func (t *terminating) wrote(ns string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, ns)
}
