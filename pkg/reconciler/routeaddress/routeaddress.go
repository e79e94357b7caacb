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
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	discoveryv1listers "k8s.io/client-go/listers/discovery/v1"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	networkinglisters "knative.dev/networking/pkg/client/listers/networking/v1alpha1"
	"knative.dev/pkg/controller"
	"knative.dev/pkg/logging"
	pkgreconciler "knative.dev/pkg/reconciler"
	"knative.dev/pkg/tracker"
	"knative.dev/serving/pkg/apis/serving"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	routereconciler "knative.dev/serving/pkg/client/injection/reconciler/serving/v1/route"
	routeresources "knative.dev/serving/pkg/reconciler/route/resources"
	routenames "knative.dev/serving/pkg/reconciler/route/resources/names"

	"knative.dev/route-address/pkg/reconciler/routeaddress/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
)

// Reconciler gives a Route's cluster-local Services the shape the
// route-address mode asks for.
type Reconciler struct {
	kubeclient kubernetes.Interface

	ingressLister   networkinglisters.IngressLister
	serviceLister   corev1listers.ServiceLister
	endpointsLister corev1listers.EndpointsLister
	sliceLister     discoveryv1listers.EndpointSliceLister
	tracker         tracker.Interface

	// expect holds writes the informers have not shown yet.
	expect *expectations
	// placeholders holds upstream's placeholder Services of unchanged
	// Routes, from which every desired Service takes its metadata.
	placeholders *resources.Placeholders
}

// Check that our Reconciler implements routereconciler.Interface.
var _ routereconciler.Interface = (*Reconciler)(nil)

// ReconcileKind implements routereconciler.Interface.
func (c *Reconciler) ReconcileKind(ctx context.Context, r *v1.Route) pkgreconciler.Event {
	cfg := config.FromContextOrDefaults(ctx).RouteAddress
	key := types.NamespacedName{Namespace: r.Namespace, Name: r.Name}
	if !c.expect.satisfied(key, c.cachedVersion(r.Namespace)) {
		// Our last writes are not in the cache yet; their events requeue
		// the Route, and this is the safety net.
		return controller.NewRequeueAfter(time.Second)
	}

	ing, err := c.ingress(r)
	if err != nil {
		return err
	}
	tags := resources.TargetTags(r)
	placeholders, err := c.placeholders.Get(ctx, r, tags)
	if err != nil {
		return err
	}
	actual, err := c.actual(r, placeholders)
	if err != nil {
		return err
	}
	in, warnings, err := c.desired(ctx, r, tags, placeholders, ing, cfg, actual)
	if err != nil {
		return err
	}
	p := plan.Make(in)

	recorder := controller.GetEventRecorder(ctx)
	for _, w := range warnings {
		recorder.Event(r, corev1.EventTypeWarning, w.reason, w.message)
	}
	for _, b := range p.Blocked {
		recorder.Eventf(r, corev1.EventTypeWarning, "NotOwned",
			"%s %q exists and is not controlled by Route %q; it is left alone and this name is not addressed", b.Kind, b.Name, r.Name)
	}
	return c.execute(ctx, r, p.Ops)
}

// cachedVersion looks objects up in the listers.
func (c *Reconciler) cachedVersion(ns string) cached {
	return func(kind plan.Kind, name string) (string, types.UID, bool) {
		var (
			o   metav1.Object
			err error
		)
		switch kind {
		case plan.KindService:
			o, err = c.serviceLister.Services(ns).Get(name)
		case plan.KindEndpoints:
			o, err = c.endpointsLister.Endpoints(ns).Get(name)
		case plan.KindEndpointSlice:
			o, err = c.sliceLister.EndpointSlices(ns).Get(name)
		}
		if err != nil {
			return "", "", false
		}
		return o.GetResourceVersion(), o.GetUID(), true
	}
}

func (c *Reconciler) ingress(r *v1.Route) (*netv1alpha1.Ingress, error) {
	ing, err := c.ingressLister.Ingresses(r.Namespace).Get(routenames.Ingress(r))
	if apierrs.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("failed to get Ingress: %w", err)
	}
	if !metav1.IsControlledBy(ing, r) {
		// Not the Route's KIngress: upstream reports that; we use no load balancer.
		return nil, nil
	}
	return ing, nil
}

// actual gathers the objects that carry the Route's label, and those with
// a name the Route wants (which may belong to somebody else): the names of
// the placeholders.
func (c *Reconciler) actual(r *v1.Route, placeholders []*resources.Placeholder) (plan.Actual, error) {
	var a plan.Actual
	sel := labels.SelectorFromSet(labels.Set{serving.RouteLabelKey: r.Name})
	ns := r.Namespace
	names := make([]string, len(placeholders))
	want := make(map[string]bool, len(placeholders))
	for i, ph := range placeholders {
		names[i] = ph.Service.Name
		want[ph.Service.Name] = true
	}

	svcs, err := c.serviceLister.Services(ns).List(sel)
	if err != nil {
		return a, fmt.Errorf("failed to list Services: %w", err)
	}
	a.Services = svcs
	eps, err := c.endpointsLister.Endpoints(ns).List(sel)
	if err != nil {
		return a, fmt.Errorf("failed to list Endpoints: %w", err)
	}
	a.Endpoints = eps
	// Objects with a wanted name but without the label: somebody else's,
	// or ours with the label removed.
	for _, n := range names {
		svc, err := c.serviceLister.Services(ns).Get(n)
		if err != nil && !apierrs.IsNotFound(err) {
			return a, fmt.Errorf("failed to get Service %q: %w", n, err)
		} else if err == nil && !sel.Matches(labels.Set(svc.Labels)) {
			a.Services = append(a.Services, svc)
		}
		ep, err := c.endpointsLister.Endpoints(ns).Get(n)
		if err != nil && !apierrs.IsNotFound(err) {
			return a, fmt.Errorf("failed to get Endpoints %q: %w", n, err)
		} else if err == nil && !sel.Matches(labels.Set(ep.Labels)) {
			a.Endpoints = append(a.Endpoints, ep)
		}
	}
	// The lister holds our slices only.
	slices, err := c.sliceLister.EndpointSlices(ns).List(labels.Everything())
	if err != nil {
		return a, fmt.Errorf("failed to list EndpointSlices: %w", err)
	}
	for _, s := range slices {
		if want[s.Labels[discoveryv1.LabelServiceName]] || sel.Matches(labels.Set(s.Labels)) {
			a.Slices = append(a.Slices, s)
		}
	}
	return a, nil
}

type warning struct{ reason, message string }

// desired builds the planner's input and the warnings to report.
func (c *Reconciler) desired(ctx context.Context, r *v1.Route, tags []string, placeholders []*resources.Placeholder, ing *netv1alpha1.Ingress,
	cfg *config.RouteAddress, actual plan.Actual) (plan.Input, []warning, error) {
	in := plan.Input{Owner: r, Actual: actual, Released: !cfg.Mode.Managed()}
	live := make(map[string]*corev1.Service, len(actual.Services))
	for _, s := range actual.Services {
		live[s.Name] = s
	}
	var warnings []warning
	resolver := resources.NewResolver(c.serviceLister)
	in.Targets = make([]plan.Target, 0, len(tags))
	for i, tag := range tags {
		isPrivate := false
		if s := live[placeholders[i].Service.Name]; s != nil {
			isPrivate = routeresources.IsClusterLocalService(s)
		}
		a, err := resources.MakeAddressing(ctx, r, tag, placeholders[i], ing, isPrivate, cfg, resolver)
		if err != nil {
			return in, nil, err
		}
		for _, ref := range a.Resolution.Referenced {
			c.track(ctx, ref, r)
		}
		if w, ok := warn(a, cfg); ok {
			warnings = append(warnings, w)
		}
		in.Targets = append(in.Targets, a.Target)
	}
	return in, warnings, nil
}

func (c *Reconciler) track(ctx context.Context, ref types.NamespacedName, r *v1.Route) {
	if err := c.tracker.TrackReference(tracker.Reference{
		APIVersion: "v1", Kind: "Service", Namespace: ref.Namespace, Name: ref.Name,
	}, r); err != nil {
		logging.FromContext(ctx).Errorw("failed to track Service "+ref.String(), "error", err)
	}
}

// warn says what an operator should hear about one name's load balancer.
func warn(a *resources.Addressing, cfg *config.RouteAddress) (warning, bool) {
	probs := a.Resolution.Problems
	if len(probs) == 0 {
		return warning{}, false
	}
	msgs := make([]string, len(probs))
	for i, p := range probs {
		msgs[i] = p.String()
	}
	detail := strings.Join(msgs, "; ")
	switch a.Shape {
	case resources.ShapeExternalName:
		return warning{"ExternalNameFallback", fmt.Sprintf(
			"Service %q falls back to ExternalName %q because its load balancer cannot be resolved to IP addresses (%s=%s): %s",
			a.Name, a.Service.Spec.ExternalName, config.ExternalNameFallbackKey, cfg.ExternalNameFallback, detail)}, true
	case resources.ShapeHeadlessEmpty:
		return warning{"LoadBalancerUnresolvable", fmt.Sprintf(
			"Service %q has no endpoints because its load balancer cannot be resolved to IP addresses (%s=%s): %s",
			a.Name, config.ExternalNameFallbackKey, cfg.ExternalNameFallback, detail)}, true
	default:
		return warning{"LoadBalancerUnresolvable", fmt.Sprintf(
			"Service %q: some load balancer entries are left out: %s", a.Name, detail)}, true
	}
}

// execute sends the operations in order and stops at the first error, so
// that the work queue retries the whole plan with backoff. Creations and
// deletions are reported in one Normal event per verb (Created, Deleted)
// rather than one per object; updates are logged only, as upstream's route
// reconciler does. Events share the client's rate limit with the writes,
// and every change of the gateway's addresses updates every Route.
func (c *Reconciler) execute(ctx context.Context, r *v1.Route, ops []plan.Op) error {
	logger := logging.FromContext(ctx)
	recorder := controller.GetEventRecorder(ctx)
	key := types.NamespacedName{Namespace: r.Namespace, Name: r.Name}
	done := map[plan.Verb][]string{}
	defer func() {
		for _, v := range []plan.Verb{plan.Create, plan.Delete} {
			if len(done[v]) > 0 {
				recorder.Eventf(r, corev1.EventTypeNormal, pastTense[v], "%s %s", pastTense[v], strings.Join(done[v], ", "))
			}
		}
	}()
	for _, op := range ops {
		if err := c.do(ctx, op); err != nil {
			verb := strings.ToLower(string(op.Verb))
			if op.Verb == plan.Create && apierrs.IsAlreadyExists(err) {
				// Exists but invisible to our listers: somebody else's.
				recorder.Eventf(r, corev1.EventTypeWarning, "NotOwned",
					"%s %q already exists and is not controlled by Route %q; it is left alone", op.Kind, op.Name(), r.Name)
			} else {
				recorder.Eventf(r, corev1.EventTypeWarning, failedReason[op.Verb], "Failed to %s %s %q: %v", verb, op.Kind, op.Name(), err)
			}
			return fmt.Errorf("failed to %s %s %q: %w", verb, op.Kind, op.Name(), err)
		}
		c.expect.wrote(key, op)
		logger.Infof("%s %s %q (%s)", op.Verb, op.Kind, op.Name(), op.Reason)
		if _, evented := pastTense[op.Verb]; evented {
			done[op.Verb] = append(done[op.Verb], fmt.Sprintf("%s %q", op.Kind, op.Name()))
		}
	}
	return nil
}

var (
	pastTense    = map[plan.Verb]string{plan.Create: "Created", plan.Delete: "Deleted"}
	failedReason = map[plan.Verb]string{plan.Create: "CreationFailed", plan.Update: "UpdateFailed", plan.Delete: "DeleteFailed"}
)

func (c *Reconciler) do(ctx context.Context, op plan.Op) error {
	ns := op.Object.GetNamespace()
	del := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptrUID(op.Object.GetUID())}}
	core := c.kubeclient.CoreV1()
	discovery := c.kubeclient.DiscoveryV1()
	var err error
	switch o := op.Object.(type) {
	case *corev1.Service:
		switch op.Verb {
		case plan.Create:
			_, err = core.Services(ns).Create(ctx, o, metav1.CreateOptions{})
		case plan.Update:
			_, err = core.Services(ns).Update(ctx, o, metav1.UpdateOptions{})
		case plan.Delete:
			err = core.Services(ns).Delete(ctx, o.Name, del)
		}
	case *corev1.Endpoints:
		switch op.Verb {
		case plan.Create:
			_, err = core.Endpoints(ns).Create(ctx, o, metav1.CreateOptions{})
		case plan.Update:
			_, err = core.Endpoints(ns).Update(ctx, o, metav1.UpdateOptions{})
		case plan.Delete:
			err = core.Endpoints(ns).Delete(ctx, o.Name, del)
		}
	case *discoveryv1.EndpointSlice:
		switch op.Verb {
		case plan.Create:
			_, err = discovery.EndpointSlices(ns).Create(ctx, o, metav1.CreateOptions{})
		case plan.Update:
			_, err = discovery.EndpointSlices(ns).Update(ctx, o, metav1.UpdateOptions{})
		case plan.Delete:
			err = discovery.EndpointSlices(ns).Delete(ctx, o.Name, del)
		}
	default:
		err = fmt.Errorf("unknown object type %T", op.Object)
	}
	if op.Verb == plan.Delete && apierrs.IsNotFound(err) {
		// Already gone (garbage collection, or a previous attempt).
		return nil
	}
	return err
}

func ptrUID(u types.UID) *types.UID { return &u }
