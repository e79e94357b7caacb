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
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	//series:namespace
	corev1listers "k8s.io/client-go/listers/core/v1"
	//series:end
	//series:retry
	"k8s.io/client-go/util/workqueue"
	//series:end

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	"knative.dev/pkg/controller"
	"knative.dev/pkg/logging"
	pkgreconciler "knative.dev/pkg/reconciler"
	"knative.dev/pkg/tracker"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	routereconciler "knative.dev/serving/pkg/client/injection/reconciler/serving/v1/route"
	routenames "knative.dev/serving/pkg/reconciler/route/resources/names"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// Reconciler gives a Route's cluster-local Services the shape the
// route-address mode asks for.
type Reconciler struct {
	kinds
	// stores are the informers' stores a Route's input is read from.
	stores  Stores
	tracker tracker.Interface

	// expect holds writes the informers have not shown yet.
	expect *expectations
	//series:warned
	// warned holds the Warnings last recorded for each Route.
	warned *warned
	//series:end
	//series:terminating
	// terminating holds the namespaces whose writes are dropped.
	terminating *terminating
	//series:end
	//series:namespace
	// namespaces give their Routes a mode of their own (namespaceNetwork).
	namespaces corev1listers.NamespaceLister
	//series:end
	//series:metrics
	// metrics counts the Routes' names by shape and writes by result.
	metrics *metrics
	//series:end
	//series:retry
	// retries are the delays of Routes whose writes failed for a passing
	// reason (see transient).
	retries workqueue.TypedRateLimiter[types.NamespacedName]
	//series:end
}

// Check that our Reconciler implements routereconciler.Interface.
var _ routereconciler.Interface = (*Reconciler)(nil)

// ReconcileKind implements routereconciler.Interface.
func (c *Reconciler) ReconcileKind(ctx context.Context, r *v1.Route) pkgreconciler.Event {
	//series:namespace
	cluster := networkFromContext(ctx)
	network, invalid := namespaceNetwork(c.namespaces, cluster, r.Namespace)
	//series:else
	// network := networkFromContext(ctx)
	//series:end
	key := types.NamespacedName{Namespace: r.Namespace, Name: r.Name}
	if !c.expect.satisfied(key, c.cachedVersion(r.Namespace)) {
		// Our last writes are not in the cache yet; their events requeue
		// the Route, and this is the safety net.
		return controller.NewRequeueAfter(time.Second)
	}

	in, ing, err := c.stores.Input(ctx, r, network)
	if err != nil {
		return err
	}
	//series:namespace
	if invalid != nil {
		in.HoldExisting = true
		c.reportInvalid(ctx, invalid)
	}
	//series:end
	var warnings []warning
	for i := range in.Targets {
		a := &in.Targets[i]
		for _, ref := range a.Resolution.Referenced {
			c.track(ctx, ref, r)
		}
		if w, ok := warn(a, network); ok {
			warnings = append(warnings, w)
		}
		if w, ok := overCapacity(a, network); ok {
			warnings = append(warnings, w)
		}
	}
	p := plan.Make(in)
	warnings = append(warnings, noLoadBalancerWarnings(r, ing, in.Targets, p.NoLoadBalancer)...)
	for _, b := range p.Blocked {
		warnings = append(warnings, warning{PendingNotOwned, fmt.Sprintf(
			"%s %q exists and is not controlled by Route %q; it is left alone and this name is not addressed", b.Kind, b.Name, r.Name)})
	}

	//series:foreign
	for _, s := range in.Actual.Foreign {
		warnings = append(warnings, warning{ForeignEndpointSlice, Foreign(r.Name, s)})
	}
	//series:end

	out, err := c.execute(ctx, r, p.Ops)
	//series:terminating
	if errors.Is(err, errNamespaceTerminating) {
		// Events could not be recorded there either.
		c.terminating.dropped(ctx, r.Namespace, err)
		c.metrics.forget(key)
		return nil
	}
	//series:end
	//series:metrics
	c.metrics.reconciled(key, cluster.RouteAddressMode, network.RouteAddressMode, nameStates(in, p, out), len(in.Actual.Foreign))
	//series:end
	warnings = append(warnings, out.warnings...)
	c.report(ctx, r, warnings)
	recorder := controller.GetEventRecorder(ctx)
	for _, v := range []plan.Verb{plan.Create, plan.Delete} {
		if len(out.done[v]) > 0 {
			recorder.Eventf(r, corev1.EventTypeNormal, pastTense[v], "%s %s", pastTense[v], strings.Join(out.done[v], ", "))
		}
	}
	if err == nil && len(p.Waiting) > 0 {
		// The mirrored slice's event reconciles the Route again; this is
		// the safety net, and keeps retrying while mirroring is off.
		logging.FromContext(ctx).Infof("Waiting for kube-controller-manager to mirror the Endpoints %s into EndpointSlices", strings.Join(p.Waiting, ", "))
		return controller.NewRequeueAfter(mirrorWait)
	}
	//series:retry
	return c.retry(ctx, key, err)
	//series:else
	// return err
	//series:end
}

//series:retry

// retry returns err, but retries a Route whose failures are all transient
// after its own delay instead, for up to retryAttempts failures in a row.
func (c *Reconciler) retry(ctx context.Context, key types.NamespacedName, err error) error {
	if c.retries == nil {
		return err
	}
	if err == nil {
		c.retries.Forget(key)
		return nil
	}
	if !transient(err) || c.retries.NumRequeues(key) >= retryAttempts {
		return err
	}
	d := c.retries.When(key)
	logging.FromContext(ctx).Infow(fmt.Sprintf("Retrying in %v after a transient failure", d), "error", err)
	return controller.NewRequeueAfter(d)
}

//series:end

// mirrorWait is how long a Route whose Endpoints are not mirrored yet waits
// before it is reconciled again if no mirrored slice shows up.
const mirrorWait = 5 * time.Second

// report records the Warnings about the Route's state, once each.
func (c *Reconciler) report(ctx context.Context, r *v1.Route, warnings []warning) {
	keys := make([]string, len(warnings))
	for i, w := range warnings {
		keys[i] = w.key()
	}
	//series:warned
	// Only those new since its last reconcile (see warned).
	if c.warned != nil {
		keys = c.warned.filter(types.NamespacedName{Namespace: r.Namespace, Name: r.Name}, keys)
	}
	//series:end
	record := make(map[string]bool, len(keys))
	for _, k := range keys {
		record[k] = true
	}
	recorder := controller.GetEventRecorder(ctx)
	for _, w := range warnings {
		if record[w.key()] {
			recorder.Event(r, corev1.EventTypeWarning, w.reason, w.message)
			delete(record, w.key()) // once per reconcile
		}
	}
}

// warning is a Warning event about the Route's state.
type warning struct {
	reason, message string
}

// The reasons of the Warning events about a name that does not get its
// mode's shape.
const (
	PendingNotOwned       = "NotOwned"
	PendingNoLoadBalancer = "LoadBalancerNotReady"
	PendingFallback       = "ExternalNameFallback"
	PendingUnresolvable   = "LoadBalancerUnresolvable"
)

// noLoadBalancerWarnings says, in the order of targets, which names keep their last
// addresses because the KIngress has no load balancer.
func noLoadBalancerWarnings(r *v1.Route, ing *netv1alpha1.Ingress, targets []resources.Addressing, noLoadBalancer []string) []warning {
	what := fmt.Sprintf("KIngress %q has no load balancer status; they follow it again once it has one", routenames.Ingress(r))
	if ing == nil {
		what = fmt.Sprintf("KIngress %q does not exist; they follow it again once it has a load balancer", routenames.Ingress(r))
	}
	var out []warning
	for _, t := range targets {
		if slices.Contains(noLoadBalancer, t.Name) {
			out = append(out, warning{reason: PendingNoLoadBalancer, message: fmt.Sprintf("Service %q keeps its last addresses: %s", t.Name, what)})
		}
	}
	return out
}

// key identifies a Warning as TableTest's Eventf writes it.
func (w warning) key() string { return corev1.EventTypeWarning + " " + w.reason + " " + w.message }

func (c *Reconciler) track(ctx context.Context, ref types.NamespacedName, r *v1.Route) {
	if err := c.tracker.TrackReference(tracker.Reference{
		APIVersion: "v1", Kind: "Service", Namespace: ref.Namespace, Name: ref.Name,
	}, r); err != nil {
		logging.FromContext(ctx).Errorw("failed to track Service "+ref.String(), "error", err)
	}
}

// warn says what an operator should hear about one name's load balancer.
func warn(a *resources.Addressing, network *netcfg.Config) (warning, bool) {
	probs := a.Resolution.Problems
	if len(probs) == 0 {
		return warning{}, false
	}
	msgs := make([]string, len(probs))
	for i, p := range probs {
		msgs[i] = p.String()
	}
	detail := strings.Join(msgs, "; ")
	if !slices.ContainsFunc(probs, func(p resources.Problem) bool { return p.Reason != resources.ReasonMappedAddress }) {
		// Every address is used, some after a rewrite.
		return warning{reason: "LoadBalancerAddressRewritten", message: fmt.Sprintf("Service %q: %s", a.Name, detail)}, true
	}
	switch a.Shape {
	case resources.ShapeExternalName:
		return warning{PendingFallback, fmt.Sprintf(
			"Service %q falls back to ExternalName %q because its load balancer cannot be resolved to IP addresses (%s=%s): %s",
			a.Name, a.Service.Spec.ExternalName, netcfg.RouteAddressExternalNameFallbackKey, network.RouteAddressExternalNameFallback, detail)}, true
	case resources.ShapeHeadlessEmpty:
		return warning{PendingUnresolvable, fmt.Sprintf(
			"Service %q has no endpoints because its load balancer cannot be resolved to IP addresses (%s=%s): %s",
			a.Name, netcfg.RouteAddressExternalNameFallbackKey, network.RouteAddressExternalNameFallback, detail)}, true
	default:
		return warning{reason: PendingUnresolvable, message: fmt.Sprintf(
			"Service %q: some load balancer entries are left out or rewritten: %s", a.Name, detail)}, true
	}
}

// overCapacity says when a name's Endpoints hold only the first
// resources.MaxEndpointsAddresses of its load balancer's addresses.
func overCapacity(a *resources.Addressing, network *netcfg.Config) (warning, bool) {
	if a.Endpoints == nil || a.Endpoints.Annotations[resources.OverCapacityAnnotation] == "" {
		return warning{}, false
	}
	rest := "kube-controller-manager mirrors only those into EndpointSlices, so the name answers with them"
	if network.RouteAddressMode.WritesEndpointSlices() {
		rest = "the EndpointSlices hold them all"
	}
	return warning{reason: "EndpointsOverCapacity", message: fmt.Sprintf(
		"Endpoints %q hold the first %d of the load balancer's %d addresses, the most an Endpoints holds (annotated %s=truncated): %s",
		a.Name, resources.MaxEndpointsAddresses, len(a.Resolution.Addresses), resources.OverCapacityAnnotation, rest)}, true
}

// outcome is what execute did: the objects created and deleted (for one
// Normal event per verb), and Warnings found on the way.
type outcome struct {
	done     map[plan.Verb][]string
	warnings []warning
	// created holds the UIDs of the Services this execution created: the
	// owner of their EndpointSlices.
	created map[string]types.UID
	// stopped holds the names whose operations stopped at a failure.
	stopped map[string]bool
	//series:metrics
	// written are the operations made, in order.
	written []plan.Op
	//series:end
}

//series:metrics

// nameStates says what a reconcile left each of the Route's names as: the
// shape of its Service once the operations made are, and why it does not
// have the mode's shape (Pending, or a failed write).
func nameStates(in plan.Input, p plan.Plan, out outcome) []nameState {
	states := make([]nameState, len(in.Targets))
	for i := range in.Targets {
		t := &in.Targets[i]
		var svc *corev1.Service
		for _, s := range in.Actual.Services {
			if s.Name == t.Name {
				svc = s
			}
		}
		for _, op := range out.written {
			if op.Kind == plan.KindService && op.Name() == t.Name {
				svc, _ = op.Object.(*corev1.Service)
				if op.Verb == plan.Delete {
					svc = nil
				}
			}
		}
		states[i] = nameState{shape: resources.ShapeOf(svc), pending: Pending(in, p, t)}
		if states[i].pending == "" && out.stopped[t.Name] {
			states[i].pending = PendingWriteFailed
		}
	}
	return states
}

//series:end

// execute sends the operations in order. A failed operation stops the
// later operations of its Service name only (they depend on it); the
// other names go on, and the errors are returned together so that the work
// queue retries with backoff. Creations and deletions are reported by the
// caller in one Normal event per verb; updates are logged only, as
// the route reconciler does. Events share the client's rate limit
// with the writes, and every change of the gateway's addresses updates
// every Route.
func (c *Reconciler) execute(ctx context.Context, r *v1.Route, ops []plan.Op) (outcome, error) {
	out := outcome{done: map[plan.Verb][]string{}, created: map[string]types.UID{}, stopped: map[string]bool{}}
	var errs []error
	for i, op := range ops {
		if out.stopped[op.Service()] {
			continue
		}
		err := c.apply(ctx, r, op, replacement(ops[i+1:], op), &out)
		//series:terminating
		if errors.Is(err, errNamespaceTerminating) {
			return out, err
		}
		//series:end
		if err != nil {
			out.stopped[op.Service()] = true
			errs = append(errs, err)
		}
	}
	return out, combine(errs)
}

// replacement returns the Create that follows op in later when op deletes
// an object to create it again (an immutable field changes), else nil.
func replacement(later []plan.Op, op plan.Op) *plan.Op {
	if op.Verb != plan.Delete {
		return nil
	}
	for i := range later {
		if later[i].Verb == plan.Create && later[i].Kind == op.Kind && later[i].Name() == op.Name() {
			return &later[i]
		}
	}
	return nil
}

// apply sends one operation. Before deleting an object to replace it, the
// replacement is created in a server-side dry run: if the apiserver would
// refuse it, the live object stays (the name keeps resolving) and the
// error is reported.
func (c *Reconciler) apply(ctx context.Context, r *v1.Route, op plan.Op, replaced *plan.Op, out *outcome) error {
	logger := logging.FromContext(ctx)
	recorder := controller.GetEventRecorder(ctx)
	verb := strings.ToLower(string(op.Verb))
	var err error
	if op, err = plan.BindOwner(op, out.created); err != nil {
		return err
	}
	if replaced != nil {
		bound, err := plan.BindOwner(*replaced, out.created)
		if err != nil {
			return err
		}
		// The live object holds the name, so a dry run that passes
		// validation ends in AlreadyExists.
		if _, err := c.do(ctx, bound, true); err != nil && !apierrs.IsAlreadyExists(err) {
			//series:terminating
			if err := namespaceTerminating(err); errors.Is(err, errNamespaceTerminating) {
				return err
			}
			//series:end
			msg := fmt.Sprintf("Failed to create %s %q (dry run before replacing it; the current one is kept): %v", op.Kind, op.Name(), err)
			recorder.Event(r, corev1.EventTypeWarning, failedReason[plan.Create], msg)
			return fmt.Errorf("failed to create %s %q (dry run): %w", op.Kind, op.Name(), err)
		}
	}
	live, err := c.write(ctx, op)
	//series:terminating
	if err := namespaceTerminating(err); errors.Is(err, errNamespaceTerminating) {
		return err
	}
	//series:end
	if op.Verb == plan.Create && apierrs.IsAlreadyExists(err) {
		return c.alreadyExists(ctx, r, op, err, out)
	}
	if err != nil {
		// A conflict means our cache was behind: retried without a
		// Warning, as knative's generated reconcilers do.
		if !apierrs.IsConflict(err) {
			msg := fmt.Sprintf("Failed to %s %s %q%s: %v", verb, op.Kind, op.Name(), refusedSize(op, err), err)
			recorder.Event(r, corev1.EventTypeWarning, failedReason[op.Verb], msg)
		}
		return fmt.Errorf("failed to %s %s %q: %w", verb, op.Kind, op.Name(), err)
	}
	if op.Kind == plan.KindService && op.Verb == plan.Create {
		out.created[op.Name()] = live.GetUID()
	}
	c.wrote(r, op, out)
	logger.Infof("%s %s %q (%s)", op.Verb, op.Kind, op.Name(), op.Reason)
	return nil
}

// refusedSize names the number of addresses an Endpoints or EndpointSlice
// write the apiserver refused as invalid or too large holds, and the most
// an EndpointSlice may hold.
func refusedSize(op plan.Op, err error) string {
	if !apierrs.IsInvalid(err) && !apierrs.IsRequestEntityTooLargeError(err) {
		return ""
	}
	switch o := op.Object.(type) {
	case *corev1.Endpoints:
		n := 0
		for _, s := range o.Subsets {
			n += len(s.Addresses)
		}
		return fmt.Sprintf(" holding %d addresses", n)
	case *discoveryv1.EndpointSlice:
		return fmt.Sprintf(" holding %d addresses (at most %d in an EndpointSlice)", len(o.Endpoints), maxSliceEndpoints)
	}
	return ""
}

// maxSliceEndpoints is the most endpoints the apiserver accepts in one
// EndpointSlice.
const maxSliceEndpoints = 1000

// write sends op: every write of the reconciler goes through it.
func (c *Reconciler) write(ctx context.Context, op plan.Op) (metav1.Object, error) {
	live, err := c.do(ctx, op, false)
	//series:metrics
	c.metrics.wrote(ctx, op, err)
	//series:end
	return live, err
}

// wrote records a write made: expected in the informers' cache, and in
// the reconcile's outcome.
func (c *Reconciler) wrote(r *v1.Route, op plan.Op, out *outcome) {
	c.expect.wrote(types.NamespacedName{Namespace: r.Namespace, Name: r.Name}, op)
	//series:metrics
	out.written = append(out.written, op)
	//series:end
	//series:terminating
	c.terminating.wrote(r.Namespace)
	//series:end
	if _, evented := pastTense[op.Verb]; evented {
		out.done[op.Verb] = append(out.done[op.Verb], fmt.Sprintf("%s %q", op.Kind, op.Name()))
	}
}

// alreadyExists handles a create refused because the name is taken by an
// object our informers do not show. Somebody else's blocks the name (a
// NotOwned Warning), unless it is a slice that carries our managed-by value.
// One of the Route's that already is what the create would have written (our
// informers are behind the apiserver, as after a restart of either) counts
// as written: the name's later operations go on, and the next reconcile
// waits for the informer to show it. A slice the Route controls whose labels
// no longer select it is taken back, labels included, so that the informer
// sees it again. Any other object of the Route's, a slice with its labels
// among them, is one the informer has not shown yet (a replica woken from a
// pause with stale caches, say): the Route is requeued and nothing is
// written.
func (c *Reconciler) alreadyExists(ctx context.Context, r *v1.Route, op plan.Op, createErr error, out *outcome) error {
	live, err := c.get(ctx, op)
	if err != nil {
		return fmt.Errorf("failed to get %s %q after it already existed: %w", op.Kind, op.Name(), err)
	}
	ours := metav1.IsControlledBy(live, r)
	if s, ok := live.(*discoveryv1.EndpointSlice); ok {
		// One that carries our managed-by value is the planner's to take
		// over once the informer shows it.
		ours = plan.OursSlice(s, op.Service()) || s.Labels[discoveryv1.LabelManagedBy] == names.ManagedBy
	}
	if !ours {
		out.warnings = append(out.warnings, warning{PendingNotOwned, fmt.Sprintf(
			"%s %q already exists and is not controlled by Route %q; it is left alone", op.Kind, op.Name(), r.Name)})
		return fmt.Errorf("failed to create %s %q: %w", op.Kind, op.Name(), createErr)
	}
	if plan.Holds(op, live) {
		if op.Kind == plan.KindService {
			out.created[op.Name()] = live.GetUID()
		}
		c.expect.wrote(types.NamespacedName{Namespace: r.Namespace, Name: r.Name}, op)
		logging.FromContext(ctx).Infof("%s %q already exists as wanted, not yet in the informer's cache", op.Kind, op.Name())
		return nil
	}
	have, isSlice := live.(*discoveryv1.EndpointSlice)
	want, _ := op.Object.(*discoveryv1.EndpointSlice)
	if !isSlice || labels.SelectorFromSet(want.Labels).Matches(labels.Set(have.Labels)) {
		logging.FromContext(ctx).Infof("%s %q exists but is not in the informer's cache yet; requeueing", op.Kind, op.Name())
		return controller.NewRequeueAfter(time.Second)
	}
	for _, o := range plan.RestoreLabels(want, have) {
		if _, err := c.write(ctx, o); err != nil {
			return fmt.Errorf("failed to %s %s %q to take it back: %w", strings.ToLower(string(o.Verb)), o.Kind, o.Name(), err)
		}
		c.wrote(r, o, out)
		logging.FromContext(ctx).Infof("%s %s %q (%s)", o.Verb, o.Kind, o.Name(), o.Reason)
	}
	return nil
}

// combine returns the errors of one reconcile as one, nil ones left out. A
// real failure comes first and hides requeues and conflicts (its backoff
// retries them all); with conflicts only, the result is a conflict (no
// Warning, as knative's generated reconcilers treat it); with requeues
// only, a requeue.
func combine(errs []error) error {
	var failures, conflicts, requeues []error
	for _, err := range errs {
		switch {
		case err == nil:
		case apierrs.IsConflict(err):
			conflicts = append(conflicts, err)
		case isRequeue(err):
			requeues = append(requeues, err)
		default:
			failures = append(failures, err)
		}
	}
	for _, group := range [][]error{failures, conflicts, requeues} {
		switch len(group) {
		case 0:
		case 1:
			return group[0]
		default:
			return errors.Join(group...)
		}
	}
	return nil
}

func isRequeue(err error) bool {
	ok, _ := controller.IsRequeueKey(err)
	return ok
}

var (
	pastTense    = map[plan.Verb]string{plan.Create: "Created", plan.Delete: "Deleted"}
	failedReason = map[plan.Verb]string{plan.Create: "CreationFailed", plan.Update: "UpdateFailed", plan.Delete: "DeleteFailed"}
)
