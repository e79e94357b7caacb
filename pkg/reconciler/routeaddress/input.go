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
	"slices"
	//series:foreign
	"strings"
	//series:end

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	networkinglisters "knative.dev/networking/pkg/client/listers/networking/v1alpha1"
	"knative.dev/serving/pkg/apis/serving"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	routeresources "knative.dev/serving/pkg/reconciler/route/resources"
	routenames "knative.dev/serving/pkg/reconciler/route/resources/names"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// SliceSelector selects the EndpointSlices this reconciler writes and those
// kube-controller-manager mirrors from Endpoints (a name in Endpoints mode
// answers through them). The binary registers it with knative.dev/pkg's
// filtered informer factory so that only those are cached, however many
// others the cluster has.
const SliceSelector = discoveryv1.LabelManagedBy + " in (" + names.ManagedBy + "," + names.MirroredBy + ")"

//series:foreign

// ForeignSliceSelector selects the EndpointSlices that serve a Service and
// that neither this reconciler nor kube-controller-manager's mirroring
// writes: any other manager's, or none. One labelled with a Route's
// Service name adds its addresses to the Route's name wherever the
// Service is headless; the reconciler reports it and leaves it alone.
const ForeignSliceSelector = discoveryv1.LabelServiceName + "," + discoveryv1.LabelManagedBy + " notin (" + names.ManagedBy + "," + names.MirroredBy + ")"

// ForeignEndpointSlice is the reason of the Warning about an EndpointSlice
// that another controller manages under one of the Route's names.
const ForeignEndpointSlice = "ForeignEndpointSlice"

// Foreign says what the slice s, which another controller manages under a
// name of the Route route, does: the Warning's message, exported for tools
// that report a Route's names.
func Foreign(route string, s *discoveryv1.EndpointSlice) string {
	manager := "no managed-by label"
	if m, ok := s.Labels[discoveryv1.LabelManagedBy]; ok {
		manager = fmt.Sprintf("managed by %q", m)
	}
	var addrs []string
	for _, e := range s.Endpoints {
		addrs = append(addrs, e.Addresses...)
	}
	adds := "no address"
	if len(addrs) > 0 {
		adds = strings.Join(addrs, ", ")
	}
	return fmt.Sprintf("EndpointSlice %q (%s) is labelled with Service %q of Route %q and adds %s to its name while the Service is headless; it is not the Route's and is left alone",
		s.Name, manager, s.Labels[discoveryv1.LabelServiceName], route, adds)
}

// StripForeign is the cache.TransformFunc of the informer of
// ForeignSliceSelector: it keeps of a foreign slice what is reported about
// it (its name, the Service it serves, its manager and its addresses, as
// one endpoint), and of one that the Service it serves controls only its
// name, for that informer also holds every slice kube-controller-manager
// makes for the cluster's Services with a selector.
func StripForeign(obj any) (any, error) {
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok {
		return obj, nil
	}
	if plan.OursSlice(s, s.Labels[discoveryv1.LabelServiceName]) {
		// Controlled by the Service it serves: kube-controller-manager's
		// slice of a Service with a selector (most of what this informer
		// holds), or one of ours whose managed-by label was removed. Not
		// foreign: only its key is kept, and no index holds it.
		return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name, ResourceVersion: s.ResourceVersion}}, nil
	}
	out := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: s.Namespace, Name: s.Name, UID: s.UID, ResourceVersion: s.ResourceVersion,
			Labels: map[string]string{discoveryv1.LabelServiceName: s.Labels[discoveryv1.LabelServiceName]},
		},
		AddressType: s.AddressType,
	}
	if m, ok := s.Labels[discoveryv1.LabelManagedBy]; ok {
		out.Labels[discoveryv1.LabelManagedBy] = m
	}
	var addrs []string
	for _, e := range s.Endpoints {
		addrs = append(addrs, e.Addresses...)
	}
	if len(addrs) > 0 {
		out.Endpoints = []discoveryv1.Endpoint{{Addresses: addrs}}
	}
	return out, nil
}

//series:end

// Stores are the objects a Route's planner input is read from: the
// controller's informer stores, or the objects a client has listed, put
// into stores of the same kind. Services and Endpoints are indexed with
// IndexByRoute and EndpointSlices with IndexSlices. Services holds every
// namespace's: a KIngress's DomainInternal names a Service in another.
type Stores struct {
	Services, Endpoints, Slices cache.Indexer
	//series:foreign
	// Foreign holds the EndpointSlices that ForeignSliceSelector selects,
	// as StripForeign leaves them (those their Service controls without
	// labels), indexed with IndexSlices; nil when they are not read.
	Foreign cache.Indexer
	//series:end
	Ingresses networkinglisters.IngressLister
}

// Input is what the planner works on for r in network's mode: the desired
// objects of each of the Route's names and the objects that exist under
// them. It also returns the Route's KIngress, nil when there is none that
// the Route controls.
func (s Stores) Input(ctx context.Context, r *v1.Route, network *netcfg.Config) (plan.Input, *netv1alpha1.Ingress, error) {
	in := plan.Input{Owner: r, ExternalNameMode: !network.RouteAddressMode.Managed()}
	ing, err := s.ingress(r)
	if err != nil {
		return in, nil, err
	}
	placeholders, err := resources.Placeholders(ctx, r, resources.TargetTags(r))
	if err != nil {
		return in, nil, err
	}
	if in.Actual, err = s.actual(r, placeholders); err != nil {
		return in, nil, err
	}
	live := make(map[string]*corev1.Service, len(in.Actual.Services))
	for _, svc := range in.Actual.Services {
		live[svc.Name] = svc
	}
	src := resources.Source{Ingress: ing, Network: network, Resolver: resources.NewResolver(corev1listers.NewServiceLister(s.Services))}
	in.Targets = make([]resources.Addressing, 0, len(placeholders))
	for _, ph := range placeholders {
		isPrivate := false
		if svc := live[ph.Service.Name]; svc != nil {
			isPrivate = routeresources.IsClusterLocalService(svc)
		}
		a, err := resources.MakeAddressing(ctx, r, ph, isPrivate, src)
		if err != nil {
			return in, nil, err
		}
		in.Targets = append(in.Targets, *a)
	}
	return in, ing, nil
}

func (s Stores) ingress(r *v1.Route) (*netv1alpha1.Ingress, error) {
	ing, err := s.Ingresses.Ingresses(r.Namespace).Get(routenames.Ingress(r))
	if apierrs.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("failed to get Ingress: %w", err)
	}
	if !metav1.IsControlledBy(ing, r) {
		// Not the Route's KIngress: the route reconciler reports that; we use no load balancer.
		return nil, nil
	}
	return ing, nil
}

// actual gathers the objects that carry the Route's label, and those with
// a name the Route wants (which may belong to somebody else): the names of
// the placeholders.
func (s Stores) actual(r *v1.Route, placeholders []*resources.Placeholder) (plan.Actual, error) {
	var a plan.Actual
	sel := labels.SelectorFromSet(labels.Set{serving.RouteLabelKey: r.Name})
	ns := r.Namespace
	names := make([]string, len(placeholders))
	for i, ph := range placeholders {
		names[i] = ph.Service.Name
	}

	svcs, err := byRoute[*corev1.Service](s.Services, ns, r.Name)
	if err != nil {
		return a, fmt.Errorf("failed to list Services: %w", err)
	}
	a.Services = svcs
	eps, err := byRoute[*corev1.Endpoints](s.Endpoints, ns, r.Name)
	if err != nil {
		return a, fmt.Errorf("failed to list Endpoints: %w", err)
	}
	a.Endpoints = eps
	// Objects with a wanted name but without the label: somebody else's,
	// or ours with the label removed.
	for _, n := range names {
		svc, err := byKey[*corev1.Service](s.Services, ns, n)
		if err != nil {
			return a, fmt.Errorf("failed to get Service %q: %w", n, err)
		} else if svc != nil && !sel.Matches(labels.Set(svc.Labels)) {
			a.Services = append(a.Services, svc)
		}
		ep, err := byKey[*corev1.Endpoints](s.Endpoints, ns, n)
		if err != nil {
			return a, fmt.Errorf("failed to get Endpoints %q: %w", n, err)
		} else if ep != nil && !sel.Matches(labels.Set(ep.Labels)) {
			a.Endpoints = append(a.Endpoints, ep)
		}
	}
	// The slices of ours and those mirrored from Endpoints that carry the
	// Route's label or serve a wanted name.
	ss, err := routeSlices(s.Slices, ns, r.Name, names)
	if err != nil {
		return a, fmt.Errorf("failed to list EndpointSlices: %w", err)
	}
	a.Slices = ss
	//series:foreign
	if s.Foreign != nil {
		if a.Foreign, err = routeSlices(s.Foreign, ns, "", names); err != nil {
			return a, fmt.Errorf("failed to list EndpointSlices: %w", err)
		}
	}
	//series:end
	return a, nil
}

// byKey returns the object of type T named ns/name in idx, or nil.
func byKey[T any](idx cache.Indexer, ns, name string) (T, error) {
	var t T
	o, ok, err := idx.GetByKey(ns + "/" + name)
	if err != nil || !ok {
		return t, err
	}
	t, _ = o.(T)
	return t, nil
}

// RouteIndex indexes objects by the Route their serving.knative.dev/route
// label names, under "{namespace}/{route}", so that a reconcile reads its
// Route's Services and Endpoints without listing its namespace.
const RouteIndex = "serving.knative.dev/route"

func routeIndexFunc(obj interface{}) ([]string, error) {
	// An informer of Services or Endpoints holds nothing else.
	o, ok := obj.(metav1.Object)
	if !ok {
		return nil, nil
	}
	if r := o.GetLabels()[serving.RouteLabelKey]; r != "" {
		return []string{o.GetNamespace() + "/" + r}, nil
	}
	return nil, nil
}

// IndexByRoute adds RouteIndex to the informer's indexer unless it has it
// already (informers are shared between controllers).
func IndexByRoute(idx cache.Indexer) error {
	if _, ok := idx.GetIndexers()[RouteIndex]; ok {
		return nil
	}
	return idx.AddIndexers(cache.Indexers{RouteIndex: routeIndexFunc})
}

// byRoute returns the objects of type T in idx that carry the label of the
// Route ns/route.
func byRoute[T any](idx cache.Indexer, ns, route string) ([]T, error) {
	objs, err := idx.ByIndex(RouteIndex, ns+"/"+route)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(objs))
	for _, o := range objs {
		if t, ok := o.(T); ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// sliceIndex indexes EndpointSlices by the Route label and by the Service
// they serve, so that a reconcile reads its Route's slices only.
const sliceIndex = "routeaddress.knative.dev/route-or-service"

// IndexSlices adds the index of EndpointSlices by Route and by Service to
// the slice informer's indexer, which is this reconciler's alone.
func IndexSlices(idx cache.Indexer) error {
	return idx.AddIndexers(cache.Indexers{sliceIndex: sliceIndexFunc})
}

// sliceIndexFunc gives a slice the keys "route/{ns}/{route}" and
// "service/{ns}/{service}".
func sliceIndexFunc(obj interface{}) ([]string, error) {
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok {
		return nil, nil
	}
	var keys []string
	if r := s.Labels[serving.RouteLabelKey]; r != "" {
		keys = append(keys, "route/"+s.Namespace+"/"+r)
	}
	if svc := s.Labels[discoveryv1.LabelServiceName]; svc != "" {
		keys = append(keys, "service/"+s.Namespace+"/"+svc)
	}
	return keys, nil
}

// routeSlices returns the slices in ns that carry the label of the Route
// route (none when "") or serve one of the wanted Service names, each once.
func routeSlices(idx cache.Indexer, ns, route string, wanted []string) ([]*discoveryv1.EndpointSlice, error) {
	var out []*discoveryv1.EndpointSlice
	add := func(objs []interface{}) {
		for _, o := range objs {
			if s, ok := o.(*discoveryv1.EndpointSlice); ok && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	if route != "" {
		objs, err := idx.ByIndex(sliceIndex, "route/"+ns+"/"+route)
		if err != nil {
			return nil, err
		}
		add(objs)
	}
	for _, n := range wanted {
		objs, err := idx.ByIndex(sliceIndex, "service/"+ns+"/"+n)
		if err != nil {
			return nil, err
		}
		add(objs)
	}
	return out, nil
}
