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

package preview

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"knative.dev/route-address/pkg/reconciler/routeaddress"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// ControllerState says whether serving's controller runs route-address
// everywhere, so that a switch of route-address-mode is safe: during a
// rolling update an old (stock) pod can still lead the route reconciler
// and reshape Services the new one manages.
type ControllerState struct {
	// Checked is false when there is no Deployment to look at (a
	// controller run outside a Deployment, as in the e2e suite).
	Checked bool `json:"checked"`
	// Images are the controller container's images in the Deployment.
	Images []string `json:"images,omitempty"`
	// RolloutComplete: every replica runs the Deployment's current template.
	RolloutComplete bool `json:"rolloutComplete"`
	// Replicas and Updated count the Deployment's pods.
	Replicas int32 `json:"replicas"`
	Updated  int32 `json:"updated"`
	// RouteAddressLeader holds the routeaddress reconciler's lease, renewed
	// within its duration; empty when no route-address controller runs.
	RouteAddressLeader string `json:"routeAddressLeader,omitempty"`
	// Problem says why a switch is not safe now, empty when it is.
	Problem string `json:"problem,omitempty"`
}

// leasePrefix starts the names of the routeaddress reconciler's leases:
// knative.dev/pkg names a bucket's lease "{component}.{queue}.{bucket}" in
// lower case, the generated reconciler names the queue after the
// reconciler's type (its package path, "/" made "."), and serving's
// component is "controller".
var leasePrefix = "controller." + strings.ToLower(strings.ReplaceAll(reflect.TypeFor[routeaddress.Reconciler]().PkgPath(), "/", ".")) + "."

// controllerState reads serving's controller Deployment and the
// routeaddress reconciler's leases in the system namespace.
func (c Clients) controllerState(ctx context.Context, systemNS string, now time.Time) (ControllerState, error) {
	var st ControllerState
	dep, err := c.Kube.AppsV1().Deployments(systemNS).Get(ctx, "controller", metav1.GetOptions{})
	if apierrs.IsNotFound(err) {
		return st, nil
	} else if err != nil {
		return st, c.explain(err, "get Deployment "+systemNS+"/controller")
	}
	st.Checked = true
	for _, ct := range dep.Spec.Template.Spec.Containers {
		st.Images = append(st.Images, ct.Image)
	}
	want := int32(1)
	if dep.Spec.Replicas != nil {
		want = *dep.Spec.Replicas
	}
	st.Replicas, st.Updated = dep.Status.Replicas, dep.Status.UpdatedReplicas
	// kubectl rollout status's rule.
	st.RolloutComplete = dep.Status.ObservedGeneration >= dep.Generation && st.Updated == want && st.Replicas == want &&
		dep.Status.AvailableReplicas == want

	leases, err := c.Kube.CoordinationV1().Leases(systemNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return st, c.explain(err, "list Leases in "+systemNS)
	}
	var holders []string
	for _, l := range leases.Items {
		if !strings.HasPrefix(l.Name, leasePrefix) || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" ||
			l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
			continue
		}
		if now.Sub(l.Spec.RenewTime.Time) <= time.Duration(*l.Spec.LeaseDurationSeconds)*time.Second {
			holders = append(holders, *l.Spec.HolderIdentity)
		}
	}
	sort.Strings(holders)
	st.RouteAddressLeader = strings.Join(holders, ", ")

	switch {
	case !st.RolloutComplete:
		st.Problem = fmt.Sprintf("Deployment %s/controller is rolling out (%d of %d replicas updated): an old controller may still lead the route reconciler; wait until `kubectl rollout status -n %s deployment/controller` is done",
			systemNS, st.Updated, want, systemNS)
	case st.RouteAddressLeader == "":
		st.Problem = fmt.Sprintf("no route-address controller runs (no live lease %s*): the controller image is not route-address's; install it with route-address-mode ExternalName first", leasePrefix)
	}
	return st, nil
}

// leftBehind lists the objects of route-address in scope that a rollback
// to the stock serving controller would leave behind: our EndpointSlices
// and our marked Endpoints (upstream deletes neither).
func (cl *cluster) leftBehind() []string {
	var out []string
	for _, s := range cl.slices {
		out = append(out, "EndpointSlice "+s.Namespace+"/"+s.Name)
	}
	for _, ep := range cl.endpoints {
		if ep.Labels[names.MarkLabel] != "" {
			out = append(out, "Endpoints "+ep.Namespace+"/"+ep.Name)
		}
	}
	sort.Strings(out)
	return out
}

// describeController is the status line for people.
func (st ControllerState) describe() string {
	if !st.Checked {
		return "controller: no Deployment found (not checked)"
	}
	rollout := "rollout complete"
	if !st.RolloutComplete {
		rollout = fmt.Sprintf("rolling out, %d of %d replicas updated", st.Updated, st.Replicas)
	}
	leader := "route-address: not running"
	if st.RouteAddressLeader != "" {
		leader = "route-address: running (leader " + st.RouteAddressLeader + ")"
	}
	return fmt.Sprintf("controller: %s, %s; %s", strings.Join(st.Images, ", "), rollout, leader)
}
