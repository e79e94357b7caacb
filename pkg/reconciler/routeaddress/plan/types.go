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

package plan

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
)

// Verb is what an operation does.
type Verb string

const (
	// Create creates Object.
	Create Verb = "Create"
	// Update replaces the live object with Object (resourceVersion kept).
	Update Verb = "Update"
	// Delete deletes the live object Object, preconditioned on its UID.
	Delete Verb = "Delete"
)

// Kind is the kind of object an operation writes.
type Kind string

const (
	// KindService is a core/v1 Service.
	KindService Kind = "Service"
	// KindEndpoints is a core/v1 Endpoints.
	KindEndpoints Kind = "Endpoints"
	// KindEndpointSlice is a discovery/v1 EndpointSlice.
	KindEndpointSlice Kind = "EndpointSlice"
)

// Object is any of the objects the planner deals with.
type Object interface {
	metav1.Object
	runtime.Object
}

// Op is one API request to make.
type Op struct {
	Verb Verb
	Kind Kind
	// Object is the object to send for Create and Update, and the live object
	// for Delete.
	Object Object
	// Reason says why, for logs and events.
	Reason string
}

// Name returns the name of the object the operation writes.
func (o Op) Name() string { return o.Object.GetName() }

// Service returns the name of the Service whose objects the operation
// writes: the object's own name, or an EndpointSlice's service-name label.
func (o Op) Service() string {
	if s, ok := o.Object.(*discoveryv1.EndpointSlice); ok {
		return s.Labels[discoveryv1.LabelServiceName]
	}
	return o.Object.GetName()
}

// Input is what the planner works on.
type Input struct {
	// Owner is the Route: only objects it controls are ever written.
	Owner metav1.Object
	// Targets are the names the Route wants, with their desired objects.
	Targets []resources.Addressing
	// Actual is what exists.
	Actual Actual
	// ExternalNameMode is true in route-address-mode externalname: the route reconciler
	// owns the Services and their Endpoints, and the plan only removes what
	// routeaddress added, once the route reconciler has taken over.
	ExternalNameMode bool
	// HoldExisting is true when the Route's Namespace has a route-address-mode
	// annotation that is not a mode: the names that have a Service keep what
	// they have (no operation on their Service, Endpoints or slices), and
	// only names without one are planned.
	HoldExisting bool
}

// Actual is what exists: objects that carry the Route's label or one of the
// desired names. Slices are ours and kube-controller-manager's mirrored
// ones; Foreign are those another controller manages under a desired name,
// which are never written nor planned on (the reconciler reports them).
type Actual struct {
	Services  []*corev1.Service
	Endpoints []*corev1.Endpoints
	Slices    []*discoveryv1.EndpointSlice
	Foreign   []*discoveryv1.EndpointSlice
}

// Blocked is an object that stands in the way but that the Route does not
// control: it is never written, and its target is left alone.
type Blocked struct {
	Kind Kind
	Name string
}

// Plan is the result of planning.
type Plan struct {
	// Ops are the operations, in the order they must be made.
	Ops []Op
	// Blocked lists objects that exist with a desired name but are not
	// controlled by the Route.
	Blocked []Blocked
	// NoLoadBalancer lists the names that have no load balancer and keep serving the
	// addresses they had.
	NoLoadBalancer []string
	// Waiting lists the names whose Endpoints kube-controller-manager has
	// yet to mirror into an EndpointSlice: until it has, their Service
	// stays ExternalName and our slices stay, so that the name keeps
	// answering. The mirrored slice's arrival reconciles the Route again.
	Waiting []string
	// Held lists the names that have operations the plan leaves out
	// because of Input.HoldExisting.
	Held []string
}
