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
	"errors"
	"strings"
	"time"

	apierrs "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/util/workqueue"
)

// The delays of a Route whose writes failed for a passing reason: from
// retryBase, doubling with each failure in a row, at most retryMax, for
// retryAttempts failures in a row (about 80 s); after that the error goes
// to the work queue's rate limiter, as any other does, so that a failure
// that does not pass (a webhook that is down for good) is not retried
// every few seconds for every Route.
const (
	retryBase     = 250 * time.Millisecond
	retryMax      = 2 * time.Second
	retryAttempts = 40
)

// newRetries returns the per-Route delays of transient failures. They
// are the Route's own: the work queue's rate limiter, which a returned
// error goes through, also holds every failing key to 10 a second
// together, so that after a control-plane restart that refused a few
// thousand writes the last Routes would wait minutes.
func newRetries() workqueue.TypedRateLimiter[types.NamespacedName] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](retryBase, retryMax)
}

// transient reports whether every failure in err is one that passes by
// itself: the apiserver unreachable, overloaded or failing (429, 5xx,
// timeouts), or OwnerReferencesPermissionEnforcement refusing a reference
// to the Route with blockOwnerDeletion because its RESTMapper does not
// know the Route's kind yet, as it does after a kube-apiserver restart
// until it reads discovery again (every 30 s).
func transient(err error) bool {
	if err == nil {
		return false
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if !transient(e) {
				return false
			}
		}
		return true
	}
	var status apierrs.APIStatus
	switch {
	case apierrs.IsTooManyRequests(err), apierrs.IsServerTimeout(err), apierrs.IsTimeout(err),
		apierrs.IsServiceUnavailable(err), apierrs.IsInternalError(err):
		return true
	case errors.As(err, &status) && status.Status().Code >= 500:
		return true
	case utilnet.IsConnectionRefused(err), utilnet.IsConnectionReset(err), utilnet.IsProbableEOF(err):
		return true
	case apierrs.IsForbidden(err) && strings.Contains(err.Error(), "cannot find RESTMapping"):
		return true
	}
	return false
}
