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
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/pager"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	netclient "knative.dev/networking/pkg/client/clientset/versioned"
	netcfg "knative.dev/networking/pkg/config"
	"knative.dev/serving/pkg/apis/serving"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	servingclient "knative.dev/serving/pkg/client/clientset/versioned"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"
	routeresources "knative.dev/serving/pkg/reconciler/route/resources"
	routenames "knative.dev/serving/pkg/reconciler/route/resources/names"

	racfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// Clients are what the plugin reads through.
type Clients struct {
	Kube    kubernetes.Interface
	Serving servingclient.Interface
	Net     netclient.Interface
	// Server is the API server's address, for error messages.
	Server string
	// Now is the clock leases are read against (nil: time.Now).
	Now func() time.Time
}

func (c Clients) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Scope selects Routes: one namespace, or all with AllNamespaces.
type Scope struct {
	Namespace     string
	AllNamespaces bool
	// SystemNamespace holds config-network and config-domain.
	SystemNamespace string
}

func (s Scope) ns() string {
	if s.AllNamespaces {
		return metav1.NamespaceAll
	}
	return s.Namespace
}

// explain turns API errors into messages that say what is wrong.
func (c Clients) explain(err error, what string) error {
	var netErr *net.OpError
	var urlErr *url.Error
	switch {
	case err == nil:
		return nil
	case apierrs.IsForbidden(err):
		return fmt.Errorf("permission denied to %s: %v (the plugin needs get/list on routes, ingresses.networking.internal.knative.dev, services, endpoints, endpointslices and configmaps, get on deployments and list on leases in the system namespace)", what, err)
	case apierrs.IsNotFound(err) && what == "list Routes":
		return fmt.Errorf("Knative Serving is not installed: the routes.serving.knative.dev resource does not exist on %s", c.Server)
	case errors.As(err, &netErr), errors.As(err, &urlErr):
		return fmt.Errorf("cannot reach the cluster at %s: %v", c.Server, err)
	default:
		return fmt.Errorf("failed to %s: %w", what, err)
	}
}

// cluster is one read of everything the planner needs.
type cluster struct {
	routes    []*v1.Route
	ingresses map[string]*netv1alpha1.Ingress // ns/name
	services  []*corev1.Service
	endpoints []*corev1.Endpoints
	slices    []*discoveryv1.EndpointSlice
	// mirrored are the slices kube-controller-manager mirrors from
	// Endpoints; the planner reads them, nothing here writes them.
	mirrored []*discoveryv1.EndpointSlice
	lister   corev1listers.ServiceLister
	routeCfg *routecfg.Config
	netData  map[string]string
}

func (c Clients) read(ctx context.Context, s Scope) (*cluster, error) {
	out := &cluster{ingresses: map[string]*netv1alpha1.Ingress{}}
	var err error
	out.routes, err = list[v1.Route](ctx, metav1.ListOptions{}, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.Serving.ServingV1().Routes(s.ns()).List(ctx, opts)
	})
	if err != nil {
		return nil, c.explain(err, "list Routes")
	}
	sort.Slice(out.routes, func(i, j int) bool {
		a, b := out.routes[i], out.routes[j]
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	})

	netCM, err := c.Kube.CoreV1().ConfigMaps(s.SystemNamespace).Get(ctx, netcfg.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		return nil, c.explain(err, "get ConfigMap "+s.SystemNamespace+"/"+netcfg.ConfigMapName)
	}
	out.netData = netCM.Data
	network, err := netcfg.NewConfigFromConfigMap(netCM)
	if err != nil {
		return nil, fmt.Errorf("ConfigMap %s/%s: %w", s.SystemNamespace, netcfg.ConfigMapName, err)
	}
	domainCM, err := c.Kube.CoreV1().ConfigMaps(s.SystemNamespace).Get(ctx, routecfg.DomainConfigName, metav1.GetOptions{})
	if err != nil {
		return nil, c.explain(err, "get ConfigMap "+s.SystemNamespace+"/"+routecfg.DomainConfigName)
	}
	domain, err := routecfg.NewDomainFromConfigMap(domainCM)
	if err != nil {
		return nil, fmt.Errorf("ConfigMap %s/%s: %w", s.SystemNamespace, routecfg.DomainConfigName, err)
	}
	out.routeCfg = &routecfg.Config{Domain: domain, Network: network}

	ings, err := list[netv1alpha1.Ingress](ctx, metav1.ListOptions{}, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.Net.NetworkingV1alpha1().Ingresses(s.ns()).List(ctx, opts)
	})
	if err != nil {
		return nil, c.explain(err, "list Ingresses")
	}
	for _, ing := range ings {
		out.ingresses[ing.Namespace+"/"+ing.Name] = ing
	}
	// All Services: DomainInternal names gateway Services in other namespaces.
	out.services, err = list[corev1.Service](ctx, metav1.ListOptions{}, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.Kube.CoreV1().Services(metav1.NamespaceAll).List(ctx, opts)
	})
	if err != nil {
		return nil, c.explain(err, "list Services")
	}
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, svc := range out.services {
		_ = idx.Add(svc)
	}
	out.lister = corev1listers.NewServiceLister(idx)
	out.endpoints, err = list[corev1.Endpoints](ctx, metav1.ListOptions{}, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.Kube.CoreV1().Endpoints(s.ns()).List(ctx, opts)
	})
	if err != nil {
		return nil, c.explain(err, "list Endpoints")
	}
	// Ours, and those mirrored from Endpoints, as the reconciler reads.
	endpointSlices, err := list[discoveryv1.EndpointSlice](ctx, metav1.ListOptions{
		LabelSelector: discoveryv1.LabelManagedBy + " in (" + names.ManagedBy + "," + names.MirroredBy + ")",
	}, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.Kube.DiscoveryV1().EndpointSlices(s.ns()).List(ctx, opts)
	})
	if err != nil {
		return nil, c.explain(err, "list EndpointSlices")
	}
	for _, es := range endpointSlices {
		if es.Labels[discoveryv1.LabelManagedBy] == names.MirroredBy {
			out.mirrored = append(out.mirrored, es)
		} else {
			out.slices = append(out.slices, es)
		}
	}
	return out, nil
}

// list reads every object that fn lists, a page at a time (client-go's
// pager, as kubectl reads), so that a cluster of many objects is not
// one response.
func list[T any](ctx context.Context, opts metav1.ListOptions, fn pager.ListPageFunc) ([]*T, error) {
	var out []*T
	err := pager.New(fn).EachListItem(ctx, opts, func(o runtime.Object) error {
		t, ok := any(o).(*T)
		if !ok {
			return fmt.Errorf("listed a %T, want a %T", o, t)
		}
		out = append(out, t)
		return nil
	})
	return out, err
}

// actualFor is what exists for r, as the reconciler gathers it.
func (cl *cluster) actualFor(r *v1.Route, svcNames []string) plan.Actual {
	sel := labels.SelectorFromSet(labels.Set{serving.RouteLabelKey: r.Name})
	want := map[string]bool{}
	for _, n := range svcNames {
		want[n] = true
	}
	match := func(o metav1.Object, nameKey string) bool {
		if o.GetNamespace() != r.Namespace {
			return false
		}
		return want[nameKey] || sel.Matches(labels.Set(o.GetLabels()))
	}
	var a plan.Actual
	for _, s := range cl.services {
		if match(s, s.Name) {
			a.Services = append(a.Services, s)
		}
	}
	for _, e := range cl.endpoints {
		if match(e, e.Name) {
			a.Endpoints = append(a.Endpoints, e)
		}
	}
	for _, s := range append(cl.slices, cl.mirrored...) {
		if match(s, s.Labels[discoveryv1.LabelServiceName]) {
			a.Slices = append(a.Slices, s)
		}
	}
	return a
}

// routeInput builds the planner input for r as the controller would in cfg.
func (cl *cluster) routeInput(ctx context.Context, r *v1.Route, cfg *racfg.Config) (plan.Input, []*resources.Addressing, error) {
	ctx = routecfg.ToContext(ctx, cl.routeCfg)
	tags := resources.TargetTags(r)
	placeholders, err := resources.Placeholders(ctx, r, tags)
	if err != nil {
		return plan.Input{}, nil, err
	}
	svcNames := make([]string, len(placeholders))
	for i, ph := range placeholders {
		svcNames[i] = ph.Service.Name
	}
	actual := cl.actualFor(r, svcNames)
	live := map[string]*corev1.Service{}
	for _, s := range actual.Services {
		live[s.Name] = s
	}
	var ing *netv1alpha1.Ingress
	if i := cl.ingresses[r.Namespace+"/"+routenames.Ingress(r)]; i != nil && metav1.IsControlledBy(i, r) {
		ing = i
	}
	in := plan.Input{Owner: r, Actual: actual, ExternalNameMode: !cfg.RouteAddressMode.Managed()}
	var ads []*resources.Addressing
	src := resources.Source{
		Ingress:  ing,
		Network:  cfg,
		Resolver: resources.NewResolver(cl.lister),
	}
	for i, ph := range placeholders {
		isPrivate := false
		if s := live[svcNames[i]]; s != nil {
			isPrivate = routeresources.IsClusterLocalService(s)
		}
		a, err := resources.MakeAddressing(ctx, r, ph, isPrivate, src)
		if err != nil {
			return in, nil, fmt.Errorf("Route %s/%s: %w", r.Namespace, r.Name, err)
		}
		in.Targets = append(in.Targets, *a)
		ads = append(ads, a)
	}
	return in, ads, nil
}
