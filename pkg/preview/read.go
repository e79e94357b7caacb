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
	"io"
	"maps"
	"net"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/pager"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	netclient "knative.dev/networking/pkg/client/clientset/versioned"
	netlisters "knative.dev/networking/pkg/client/listers/networking/v1alpha1"
	networkingcfg "knative.dev/networking/pkg/config"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	servingclient "knative.dev/serving/pkg/client/clientset/versioned"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress"
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
	// Warn, when set, is told what the plugin could not read and what it
	// assumed instead.
	Warn func(string)
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
		return fmt.Errorf("permission denied to %s: %v (the plugin needs get, list and watch on routes, ingresses.networking.internal.knative.dev, services, endpoints and endpointslices, and get on configmaps and deployments and list on leases in the system namespace: the ClusterRole route-address-plugin-reader)", what, err)
	case apierrs.IsNotFound(err) && what == "list Routes":
		return fmt.Errorf("Knative Serving is not installed: the routes.serving.knative.dev resource does not exist on %s", c.Server)
	case errors.As(err, &netErr), errors.As(err, &urlErr):
		return fmt.Errorf("cannot reach the cluster at %s: %w", c.Server, err)
	default:
		return fmt.Errorf("failed to %s: %w", what, err)
	}
}

// objects are the objects in scope the planner reads: listed once, or
// held by a Watch's informers.
type objects struct {
	routes    []*v1.Route
	ingresses []*netv1alpha1.Ingress
	services  []*corev1.Service
	endpoints []*corev1.Endpoints
	// slices are ours and those kube-controller-manager mirrors from
	// Endpoints; foreign those of other managers, as the controller's
	// informer keeps them (routeaddress.StripForeign).
	slices, foreign []*discoveryv1.EndpointSlice
}

// cluster is one read of everything the planner needs.
type cluster struct {
	routes []*v1.Route
	// services are the Services in scope; the gateway Services outside it
	// that the KIngresses name are only in stores.
	services  []*corev1.Service
	endpoints []*corev1.Endpoints
	slices    []*discoveryv1.EndpointSlice
	// mirrored are the slices kube-controller-manager mirrors from
	// Endpoints; the planner reads them, nothing here writes them.
	mirrored []*discoveryv1.EndpointSlice
	// stores hold the objects above as the controller's informers do.
	stores   routeaddress.Stores
	routeCfg *routecfg.Config
	netData  map[string]string
	// modes are the route-address-mode annotations of the Namespaces in
	// scope that have one (netcfg.RouteAddressModeAnnotationKey).
	modes map[string]map[string]string
}

func (c Clients) read(ctx context.Context, s Scope) (*cluster, error) {
	o, err := c.list(ctx, s)
	if err != nil {
		return nil, err
	}
	return c.assemble(ctx, s, o)
}

// list reads the objects in scope, a page at a time.
func (c Clients) list(ctx context.Context, s Scope) (*objects, error) {
	o := &objects{}
	var err error
	o.routes, err = list[v1.Route](ctx, metav1.ListOptions{}, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.Serving.ServingV1().Routes(s.ns()).List(ctx, opts)
	})
	if err != nil {
		return nil, c.explain(err, "list Routes")
	}
	o.ingresses, err = list[netv1alpha1.Ingress](ctx, metav1.ListOptions{}, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.Net.NetworkingV1alpha1().Ingresses(s.ns()).List(ctx, opts)
	})
	if err != nil {
		return nil, c.explain(err, "list Ingresses")
	}
	o.services, err = list[corev1.Service](ctx, metav1.ListOptions{}, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.Kube.CoreV1().Services(s.ns()).List(ctx, opts)
	})
	if err != nil {
		return nil, c.explain(err, "list Services")
	}
	o.endpoints, err = list[corev1.Endpoints](ctx, metav1.ListOptions{}, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.Kube.CoreV1().Endpoints(s.ns()).List(ctx, opts)
	})
	if err != nil {
		return nil, c.explain(err, "list Endpoints")
	}
	o.slices, err = list[discoveryv1.EndpointSlice](ctx, metav1.ListOptions{LabelSelector: routeaddress.SliceSelector}, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.Kube.DiscoveryV1().EndpointSlices(s.ns()).List(ctx, opts)
	})
	if err != nil {
		return nil, c.explain(err, "list EndpointSlices")
	}
	err = pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.Kube.DiscoveryV1().EndpointSlices(s.ns()).List(ctx, opts)
	}).EachListItem(ctx, metav1.ListOptions{LabelSelector: routeaddress.ForeignSliceSelector}, func(obj runtime.Object) error {
		stripped, err := routeaddress.StripForeign(obj)
		if es, ok := stripped.(*discoveryv1.EndpointSlice); ok && err == nil {
			o.foreign = append(o.foreign, es)
		}
		return err
	})
	if err != nil {
		return nil, c.explain(err, "list EndpointSlices")
	}
	return o, nil
}

// assemble reads the configuration and the gateway Services outside scope
// that the KIngresses name, and puts it all into the planner's stores.
func (c Clients) assemble(ctx context.Context, s Scope, o *objects) (*cluster, error) {
	out := &cluster{routes: slices.Clone(o.routes), services: o.services, endpoints: o.endpoints}
	sort.Slice(out.routes, func(i, j int) bool {
		a, b := out.routes[i], out.routes[j]
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	})
	netCM, err := c.Kube.CoreV1().ConfigMaps(s.SystemNamespace).Get(ctx, networkingcfg.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		return nil, c.explain(err, "get ConfigMap "+s.SystemNamespace+"/"+networkingcfg.ConfigMapName)
	}
	out.netData = netCM.Data
	network, err := networkingcfg.NewConfigFromConfigMap(netCM)
	if err != nil {
		return nil, fmt.Errorf("ConfigMap %s/%s: %w", s.SystemNamespace, networkingcfg.ConfigMapName, err)
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

	for _, es := range o.slices {
		if es.Labels[discoveryv1.LabelManagedBy] == names.MirroredBy {
			out.mirrored = append(out.mirrored, es)
		} else {
			out.slices = append(out.slices, es)
		}
	}
	if out.modes, err = c.namespaceModes(ctx, s); err != nil {
		return nil, err
	}
	gateways, err := c.gateways(ctx, s, o.ingresses)
	if err != nil {
		return nil, err
	}
	out.stores, err = newStores(o.ingresses, append(gateways, o.services...), o.endpoints, o.slices, o.foreign)
	return out, err
}

// namespaceModes reads the route-address-mode annotations of the Namespaces
// in scope: one list with -A, one get with -n. For a user who may not read
// Namespaces every Route has config-network's mode, and Warn says so.
func (c Clients) namespaceModes(ctx context.Context, s Scope) (map[string]map[string]string, error) {
	var nss []*corev1.Namespace
	var err error
	if s.AllNamespaces {
		nss, err = list[corev1.Namespace](ctx, metav1.ListOptions{}, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return c.Kube.CoreV1().Namespaces().List(ctx, opts)
		})
	} else {
		var n *corev1.Namespace
		if n, err = c.Kube.CoreV1().Namespaces().Get(ctx, s.Namespace, metav1.GetOptions{}); err == nil {
			nss = []*corev1.Namespace{n}
		}
	}
	switch {
	case apierrs.IsForbidden(err):
		if c.Warn != nil {
			c.Warn(fmt.Sprintf("cannot read Namespaces (%v): every Route is shown in config-network's route-address-mode; a Namespace's %s annotation is not seen",
				err, netcfg.RouteAddressModeAnnotationKey))
		}
		return nil, nil
	case apierrs.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, c.explain(err, "read Namespaces")
	}
	modes := map[string]map[string]string{}
	for _, n := range nss {
		if _, ok := n.Annotations[netcfg.RouteAddressModeAnnotationKey]; ok {
			modes[n.Name] = n.Annotations
		}
	}
	return modes, nil
}

// namespaceConfig is cfg with the mode of the Routes in namespace ns: its
// annotation's when that is a mode, as the controller reads it. held is
// true when the annotation is not a mode: the controller leaves the names
// that exist as they are (plan.Input.HoldExisting).
func (cl *cluster) namespaceConfig(cfg *netcfg.Config, ns string) (_ *netcfg.Config, held bool) {
	mode, err := cfg.RouteAddressModeFor(cl.modes[ns])
	if err != nil || mode == cfg.RouteAddressMode {
		return cfg, err != nil
	}
	copied := *cfg
	copied.RouteAddressMode = mode
	return &copied, false
}

// InvalidNamespace is a Namespace whose route-address-mode annotation is
// not a mode: the controller leaves its Routes' names that exist as they
// are until it is fixed or removed.
type InvalidNamespace struct {
	Namespace string `json:"namespace"`
	Value     string `json:"value"`
}

// invalidNamespaces lists the Namespaces in scope whose annotation is not
// a mode.
func (cl *cluster) invalidNamespaces() []InvalidNamespace {
	out := []InvalidNamespace{}
	for _, ns := range slices.Sorted(maps.Keys(cl.modes)) {
		if _, err := (&netcfg.Config{}).RouteAddressModeFor(cl.modes[ns]); err != nil {
			out = append(out, InvalidNamespace{Namespace: ns, Value: cl.modes[ns][netcfg.RouteAddressModeAnnotationKey]})
		}
	}
	return out
}

// writeInvalid prints the Namespaces whose annotation is not a mode.
func writeInvalid(w io.Writer, invalid []InvalidNamespace) {
	for _, n := range invalid {
		fmt.Fprintf(w, "INVALID: Namespace %s: annotation %s=%q is not a mode (allowed: %s); the controller leaves its Routes' Services, Endpoints and EndpointSlices as they are until it is fixed or removed\n",
			n.Namespace, netcfg.RouteAddressModeAnnotationKey, n.Value, allowedModes())
	}
}

// allowedModes lists the modes, comma separated.
func allowedModes() string {
	out := make([]string, len(netcfg.RouteAddressModes))
	for i, m := range netcfg.RouteAddressModes {
		out[i] = string(m)
	}
	return strings.Join(out, ", ")
}

// gateways gets the Services outside scope that the KIngresses'
// DomainInternal entries name (a gateway's Service, in its own namespace):
// a handful of reads, where listing every Service would be thousands. One
// that does not exist is left out, as the reconciler finds it missing.
func (c Clients) gateways(ctx context.Context, s Scope, ings []*netv1alpha1.Ingress) ([]*corev1.Service, error) {
	if s.AllNamespaces {
		return nil, nil
	}
	none := corev1listers.NewServiceLister(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}))
	named := map[types.NamespacedName]bool{}
	for _, ing := range ings {
		for _, lb := range []*netv1alpha1.LoadBalancerStatus{ing.Status.PrivateLoadBalancer, ing.Status.PublicLoadBalancer} {
			for _, ref := range resources.Resolve(lb, none).Referenced {
				if ref.Namespace != s.Namespace {
					named[ref] = true
				}
			}
		}
	}
	refs := slices.SortedFunc(maps.Keys(named), func(a, b types.NamespacedName) int { return strings.Compare(a.String(), b.String()) })
	var out []*corev1.Service
	for _, ref := range refs {
		svc, err := c.Kube.CoreV1().Services(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		switch {
		case apierrs.IsNotFound(err):
		case err != nil:
			return nil, c.explain(err, "get Service "+ref.String()+" (a gateway a KIngress in "+s.Namespace+" names)")
		default:
			out = append(out, svc)
		}
	}
	return out, nil
}

// newStores puts what was listed into Stores indexed as the controller's
// informers are.
func newStores(ings []*netv1alpha1.Ingress, svcs []*corev1.Service, eps []*corev1.Endpoints, ess, foreign []*discoveryv1.EndpointSlice) (routeaddress.Stores, error) {
	newIndexer := func() cache.Indexer {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	s := routeaddress.Stores{Services: newIndexer(), Endpoints: newIndexer(), Slices: newIndexer(), Foreign: newIndexer()}
	ingIdx := newIndexer()
	s.Ingresses = netlisters.NewIngressLister(ingIdx)
	errs := []error{routeaddress.IndexByRoute(s.Services), routeaddress.IndexByRoute(s.Endpoints), routeaddress.IndexSlices(s.Slices), routeaddress.IndexSlices(s.Foreign)}
	for _, o := range ings {
		errs = append(errs, ingIdx.Add(o))
	}
	for _, o := range svcs {
		errs = append(errs, s.Services.Add(o))
	}
	for _, o := range eps {
		errs = append(errs, s.Endpoints.Add(o))
	}
	for _, o := range ess {
		errs = append(errs, s.Slices.Add(o))
	}
	for _, o := range foreign {
		errs = append(errs, s.Foreign.Add(o))
	}
	return s, errors.Join(errs...)
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

// routeInput is the planner's input for r in cfg's mode, built by the
// reconciler's own Stores.Input from what the plugin read.
func (cl *cluster) routeInput(ctx context.Context, r *v1.Route, cfg *netcfg.Config) (plan.Input, error) {
	in, _, err := cl.stores.Input(routecfg.ToContext(ctx, cl.routeCfg), r, cfg)
	if err != nil {
		return in, fmt.Errorf("Route %s/%s: %w", r.Namespace, r.Name, err)
	}
	return in, nil
}
