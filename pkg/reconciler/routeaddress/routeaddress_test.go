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
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	clientgotesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	fakekubeclient "knative.dev/pkg/client/injection/kube/client/fake"
	"knative.dev/pkg/configmap"
	"knative.dev/pkg/controller"
	"knative.dev/pkg/logging"
	. "knative.dev/pkg/reconciler/testing"
	"knative.dev/pkg/tracker"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	servingclient "knative.dev/serving/pkg/client/injection/client"
	routereconciler "knative.dev/serving/pkg/client/injection/reconciler/serving/v1/route"
	. "knative.dev/serving/pkg/reconciler/testing/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

const key = rt.Namespace + "/" + rt.RouteName

type cfgKey struct{}

// withMode is a row context carrying the route-address configuration.
func withMode(mode netcfg.RouteAddressMode, fb netcfg.RouteAddressFallback) context.Context {
	return context.WithValue(context.Background(), cfgKey{}, &netcfg.Config{RouteAddressMode: mode, RouteAddressExternalNameFallback: fb})
}

var gatewayIP = "10.96.100.10"

func gateway(ips ...string) *corev1.Service {
	if len(ips) == 0 {
		ips = []string{gatewayIP}
	}
	return rt.GatewayService(ips)
}

var (
	lbIP       = []netv1alpha1.LoadBalancerIngressStatus{rt.IP("10.0.0.7")}
	lbIP2      = []netv1alpha1.LoadBalancerIngressStatus{rt.IP("10.0.0.8")}
	lbInternal = []netv1alpha1.LoadBalancerIngressStatus{rt.DomainInternal(rt.GatewayDomain)}
	lbNone     []netv1alpha1.LoadBalancerIngressStatus
)

// The address families of the test's EndpointSlices.
const (
	ipv4 = discoveryv1.AddressTypeIPv4
	ipv6 = discoveryv1.AddressTypeIPv6
)

// live returns the objects as the apiserver stores them: defaulted, with
// UIDs, and (for an allocated Service) a cluster IP.
func live(objs ...runtime.Object) []runtime.Object {
	out := make([]runtime.Object, 0, len(objs))
	for _, o := range objs {
		o = o.DeepCopyObject()
		switch t := o.(type) {
		case *corev1.Service:
			rt.DefaultService(nil, t, func() string { return "10.96.0.42" })
		case *corev1.Endpoints:
			rt.DefaultEndpoints(t)
		case *discoveryv1.EndpointSlice:
			rt.DefaultSlice(t)
			t.OwnerReferences = ownedByLive(t.OwnerReferences)
		}
		m := o.(metav1.Object)
		m.SetUID(k8stypes.UID("uid-" + m.GetName()))
		m.SetResourceVersion("1")
		out = append(out, o)
	}
	return out
}

// liveOne is live for a single object.
func liveOne[T runtime.Object](o T) T { return live(o)[0].(T) }

// ownedByLive binds a controller reference to a Service to the UID live
// gives that Service.
func ownedByLive(refs []metav1.OwnerReference) []metav1.OwnerReference {
	for _, r := range refs {
		if r.Kind == "Service" && r.UID == "" {
			return plan.OwnerUID(refs, k8stypes.UID("uid-"+r.Name))
		}
	}
	return refs
}

func base(route *v1.Route, lb []netv1alpha1.LoadBalancerIngressStatus, extra ...runtime.Object) []runtime.Object {
	return append([]runtime.Object{route, rt.Ingress(route, lb...), gateway()}, extra...)
}

// obj names an object in an event message.
func obj(kind plan.Kind, name string) string { return fmt.Sprintf("%s %q", kind, name) }

// done is the one Normal event a reconcile records per verb.
func done(reason string, objs ...string) string {
	return Eventf(corev1.EventTypeNormal, reason, "%s %s", reason, strings.Join(objs, ", "))
}

var (
	servicesResource  = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	endpointsResource = schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}
	slicesResource    = schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
)

func deleteOf(res schema.GroupVersionResource, name string) clientgotesting.DeleteActionImpl {
	return clientgotesting.DeleteActionImpl{
		ActionImpl: clientgotesting.ActionImpl{Namespace: rt.Namespace, Verb: "delete", Resource: res},
		Name:       name,
	}
}

func updateOf(o runtime.Object) clientgotesting.UpdateActionImpl {
	return clientgotesting.UpdateActionImpl{Object: o}
}

func TestReconcile(t *testing.T) {
	route := rt.Route(true)
	untagged := rt.Route(false)
	es, eps := netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpointsAndSlices
	on := netcfg.RouteAddressFallbackEnabled
	h, tg := rt.RouteName, rt.TagService

	table := TableTest{{
		Name: "bad workqueue key",
		Key:  "too/many/parts",
	}, {
		Name: "key not found",
		Key:  "foo/not-found",
	}}

	table = append(table, TableRow{
		Name:    "create: EndpointSlices, IP",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbIP),
		WantCreates: []runtime.Object{
			rt.HeadlessService(tg), rt.HeadlessService(h), rt.Slice(tg, ipv4, "10.0.0.7"), rt.Slice(h, ipv4, "10.0.0.7"),
		},
		WantEvents: []string{
			done("Created", obj(plan.KindService, tg), obj(plan.KindService, h),
				obj(plan.KindEndpointSlice, tg+"-ipv4"), obj(plan.KindEndpointSlice, h+"-ipv4")),
		},
	}, TableRow{
		Name:    "create: EndpointsAndSlices, no load balancer yet: headless placeholders only",
		Key:     key,
		Ctx:     withMode(eps, on),
		Objects: base(route, lbNone),
		WantCreates: []runtime.Object{
			rt.HeadlessService(tg), rt.HeadlessService(h),
		},
		WantEvents: []string{done("Created", obj(plan.KindService, tg), obj(plan.KindService, h))},
	}, TableRow{
		Name: "update: the load balancer IP changes",
		Key:  key,
		Ctx:  withMode(eps, on),
		Objects: base(route, lbIP2, live(
			rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7"}, rt.WithSkipMirror), rt.Slice(h, ipv4, "10.0.0.7"),
			rt.HeadlessService(tg), rt.Endpoints(tg, []string{"10.0.0.7"}, rt.WithSkipMirror), rt.Slice(tg, ipv4, "10.0.0.7"),
		)...),
		WantUpdates: []clientgotesting.UpdateActionImpl{
			updateOf(withUID(liveOne(rt.Slice(tg, ipv4, "10.0.0.8")))),
			updateOf(withUID(rt.Endpoints(tg, []string{"10.0.0.8"}, rt.WithSkipMirror))),
			updateOf(withUID(liveOne(rt.Slice(h, ipv4, "10.0.0.8")))),
			updateOf(withUID(rt.Endpoints(h, []string{"10.0.0.8"}, rt.WithSkipMirror))),
		},
		// Updates are logged, not evented.
	}, TableRow{
		Name:    "update: a new tag gets its Service and slices",
		Key:     key,
		Ctx:     withMode(es, on),
		Objects: base(route, lbIP, live(rt.HeadlessService(h), rt.Slice(h, ipv4, "10.0.0.7"))...),
		WantCreates: []runtime.Object{
			rt.HeadlessService(tg), rt.Slice(tg, ipv4, "10.0.0.7"),
		},
		WantEvents: []string{done("Created", obj(plan.KindService, tg), obj(plan.KindEndpointSlice, tg+"-ipv4"))},
	}, TableRow{
		// Our objects as made for the old gateway ClusterIP; the gateway
		// Service now has a new one.
		Name: "update: the DomainInternal target Service gets a new ClusterIP",
		Key:  key,
		Ctx:  withMode(es, on),
		Objects: append([]runtime.Object{untagged, rt.Ingress(untagged, lbInternal...), gateway("10.96.200.20")}, live(
			rt.HeadlessService(h), rt.Slice(h, ipv4, "10.96.100.10"),
		)...),
		WantUpdates: []clientgotesting.UpdateActionImpl{updateOf(withUID(liveOne(rt.Slice(h, ipv4, "10.96.200.20"))))},
	}, TableRow{
		Name: "tag removed: its Service, Endpoints and slices are deleted",
		Key:  key,
		Ctx:  withMode(eps, on),
		Objects: base(untagged, lbIP, live(
			rt.HeadlessService(h), rt.Endpoints(h, []string{"10.0.0.7"}, rt.WithSkipMirror), rt.Slice(h, ipv4, "10.0.0.7"),
			rt.HeadlessService(tg), rt.Endpoints(tg, []string{"10.0.0.7"}, rt.WithSkipMirror), rt.Slice(tg, ipv4, "10.0.0.7"),
		)...),
		WantDeletes: []clientgotesting.DeleteActionImpl{
			deleteOf(servicesResource, tg), deleteOf(endpointsResource, tg), deleteOf(slicesResource, tg+"-ipv4"),
		},
		WantEvents: []string{
			done("Deleted", obj(plan.KindService, tg), obj(plan.KindEndpoints, tg), obj(plan.KindEndpointSlice, tg+"-ipv4")),
		},
	})

	table.Test(t, recording(factory()))
}

// factory builds the Reconciler on the row's listers and fake client, in
// the mode the row's context carries (withMode), and with the warnings
// already reported that it carries (withWarned).
func factory() Factory {
	return MakeFactory(func(ctx context.Context, listers *Listers, _ configmap.Watcher) controller.Reconciler {
		settings, ok := ctx.Value(cfgKey{}).(*netcfg.Config)
		if !ok {
			settings = &netcfg.Config{RouteAddressMode: netcfg.RouteAddressModeEndpointSlices, RouteAddressExternalNameFallback: netcfg.RouteAddressFallbackEnabled}
		}
		// The controller's EndpointSlice informers, each filtered by its
		// selector.
		all := listers.IndexerFor(&discoveryv1.EndpointSlice{}).List()
		slices := selected(all, SliceSelector, nil)
		services, endpoints := listers.IndexerFor(&corev1.Service{}), listers.IndexerFor(&corev1.Endpoints{})
		for _, idx := range []cache.Indexer{services, endpoints} {
			if err := IndexByRoute(idx); err != nil {
				panic(err)
			}
		}
		r := &Reconciler{
			kinds: kinds{
				kubeclient:      fakekubeclient.Get(ctx),
				serviceLister:   listers.GetK8sServiceLister(),
				endpointsLister: listers.GetEndpointsLister(),
				sliceLister:     endpointSliceLister(listers),
			},
			stores:  Stores{Services: services, Endpoints: endpoints, Slices: slices, Ingresses: listers.GetIngressLister()},
			tracker: ctx.Value(TrackerKey).(tracker.Interface),
			expect:  newExpectations(),
		}
		//series:namespace
		r.namespaces = listers.GetNamespaceLister()
		//series:end
		//series:foreign
		r.stores.Foreign = selected(all, ForeignSliceSelector, StripForeign)
		//series:end
		//series:warned
		r.warned = newWarned()
		if w, ok := ctx.Value(warnedKey{}).([]string); ok {
			r.warned.seed(k8stypes.NamespacedName{Namespace: rt.Namespace, Name: rt.RouteName}, w)
		}
		//series:end
		//series:terminating
		r.terminating = newTerminating()
		//series:end
		//series:retry
		r.retries = newRetries()
		//series:end
		//series:metrics
		if m, ok := ctx.Value(metricsKey{}).(*metrics); ok {
			r.metrics = m
		}
		//series:end
		return routereconciler.NewReconciler(ctx, logging.FromContext(ctx), servingclient.Get(ctx),
			listers.GetRouteLister(), controller.GetEventRecorder(ctx), r,
			controller.Options{ConfigStore: testStore{settings}, SkipStatusUpdates: true})
	})
}

// selected is an indexer of the slices in objs that selector selects, as
// the informer made with it caches them (transformed unless transform is
// nil), indexed with IndexSlices.
func selected(objs []interface{}, selector string, transform cache.TransformFunc) cache.Indexer {
	sel, err := labels.Parse(selector)
	if err != nil {
		panic(err)
	}
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err := IndexSlices(idx); err != nil {
		panic(err)
	}
	for _, o := range objs {
		s := o.(*discoveryv1.EndpointSlice)
		if !sel.Matches(labels.Set(s.Labels)) {
			continue
		}
		if transform != nil {
			if o, err = transform(s.DeepCopy()); err != nil {
				panic(err)
			}
		}
		if err := idx.Add(o); err != nil {
			panic(err)
		}
	}
	return idx
}

// withUID gives a desired object the UID and resourceVersion live() gives
// the object of the same name, as an Update sends them.
func withUID[T runtime.Object](o T) T {
	o = o.DeepCopyObject().(T)
	m := any(o).(metav1.Object)
	m.SetUID(k8stypes.UID("uid-" + m.GetName()))
	m.SetResourceVersion("1")
	return o
}

//series:warned

// warnedKey carries the Warnings a row's Route has already had reported.
type warnedKey struct{}

//series:end
//series:metrics

// metricsKey carries the metrics a row's Reconciler records to.
type metricsKey struct{}

//series:end

const actionsKey = "actions"

// recording is f with the row's ActionRecorderList kept for its
// PostConditions, and every row checked by checkEndpointPorts.
func recording(f Factory) Factory {
	return func(t *testing.T, r *TableRow) (controller.Reconciler, ActionRecorderList, EventList) {
		c, actions, events := f(t, r)
		if r.OtherTestData == nil {
			r.OtherTestData = map[string]interface{}{}
		}
		r.OtherTestData[actionsKey] = actions
		r.PostConditions = append(r.PostConditions, checkEndpointPorts)
		return c, actions, events
	}
}

// checkEndpointPorts: every Endpoints and EndpointSlice written serves
// port 80 named http2 with appProtocol kubernetes.io/h2c, the gateway's
// port in every fixture (written out, not computed).
func checkEndpointPorts(t *testing.T, r *TableRow) {
	t.Helper()
	for _, rec := range r.OtherTestData[actionsKey].(ActionRecorderList) {
		for _, a := range rec.Actions() {
			var obj interface{}
			switch a := a.(type) {
			case clientgotesting.CreateActionImpl:
				obj = a.GetObject()
			case clientgotesting.UpdateActionImpl:
				obj = a.GetObject()
			}
			switch o := obj.(type) {
			case *corev1.Endpoints:
				for _, ss := range o.Subsets {
					if len(ss.Ports) != 1 || ss.Ports[0].Port != 80 || ss.Ports[0].Name != "http2" || ss.Ports[0].AppProtocol == nil || *ss.Ports[0].AppProtocol != "kubernetes.io/h2c" {
						t.Errorf("Endpoints %s ports = %+v, want one port 80 named http2 (kubernetes.io/h2c)", o.Name, ss.Ports)
					}
				}
			case *discoveryv1.EndpointSlice:
				if len(o.Ports) != 1 || o.Ports[0].Port == nil || *o.Ports[0].Port != 80 || o.Ports[0].Name == nil || *o.Ports[0].Name != "http2" ||
					o.Ports[0].AppProtocol == nil || *o.Ports[0].AppProtocol != "kubernetes.io/h2c" {
					t.Errorf("EndpointSlice %s ports = %+v, want one port 80 named http2 (kubernetes.io/h2c)", o.Name, o.Ports)
				}
			}
		}
	}
}
