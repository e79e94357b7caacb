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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"knative.dev/pkg/apis"
	pkgreconciler "knative.dev/pkg/reconciler"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
)

// ConditionClusterLocalAddressReady is set False on a Route while one of
// its cluster-local names has no address of the mode's shape: a Service
// of its name that another owner holds (NotOwned), a load balancer that
// resolves to no address (LoadBalancerUnresolvable, or
// ExternalNameFallback when the name answers with a CNAME instead), or a
// write the apiserver refused (CreationFailed, UpdateFailed,
// DeleteFailed). The reason and message are those of the Warning event
// that says the same. The condition is removed once every name has its
// addresses: a healthy Route carries none, so that a mode switch of many
// Routes costs no status write per Route. It is not one of the conditions
// Ready depends on (those are the route reconciler's), so its severity is
// Warning.
const ConditionClusterLocalAddressReady apis.ConditionType = "ClusterLocalAddressReady"

// routeConditions manages the Route's status conditions for
// ConditionClusterLocalAddressReady only: it is not among the dependents,
// so setting it leaves Ready alone.
var routeConditions = apis.NewLivingConditionSet(
	v1.RouteConditionAllTrafficAssigned, v1.RouteConditionIngressReady, v1.RouteConditionCertificateProvisioned)

// unanswered returns the first Warning that leaves a name without an
// address, nil for none.
func unanswered(warnings []warning) *warning {
	for i := range warnings {
		if warnings[i].unanswered {
			return &warnings[i]
		}
	}
	return nil
}

// markAddress sets ConditionClusterLocalAddressReady False with problem's
// reason and message, or removes it when problem is nil, writing the
// Route's status only when that changes it.
func (c *Reconciler) markAddress(ctx context.Context, r *v1.Route, problem *warning) error {
	if addressMarked(&r.Status, problem) {
		return nil
	}
	return pkgreconciler.RetryUpdateConflicts(func(attempts int) error {
		route := r
		if attempts > 0 {
			var err error
			if route, err = c.client.ServingV1().Routes(r.Namespace).Get(ctx, r.Name, metav1.GetOptions{}); err != nil {
				return err
			}
			if addressMarked(&route.Status, problem) {
				return nil
			}
		}
		route = route.DeepCopy()
		conditions := routeConditions.Manage(&route.Status)
		if problem == nil {
			_ = conditions.ClearCondition(ConditionClusterLocalAddressReady) // fails only on a nil status
		} else {
			conditions.SetCondition(apis.Condition{
				Type:     ConditionClusterLocalAddressReady,
				Status:   corev1.ConditionFalse,
				Severity: apis.ConditionSeverityWarning,
				Reason:   problem.reason,
				Message:  problem.message,
			})
		}
		if _, err := c.client.ServingV1().Routes(r.Namespace).UpdateStatus(ctx, route, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("failed to update the status of Route %q: %w", r.Name, err)
		}
		return nil
	})
}

// addressMarked reports whether status already says what problem says:
// ConditionClusterLocalAddressReady absent for nil, else False with its
// reason and message.
func addressMarked(status *v1.RouteStatus, problem *warning) bool {
	have := status.GetCondition(ConditionClusterLocalAddressReady)
	if problem == nil || have == nil {
		return problem == nil && have == nil
	}
	return have.IsFalse() && have.Severity == apis.ConditionSeverityWarning && have.Reason == problem.reason && have.Message == problem.message
}
