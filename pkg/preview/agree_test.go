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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	netfake "knative.dev/networking/pkg/client/clientset/versioned/fake"
	netinformers "knative.dev/networking/pkg/client/informers/externalversions"
	networkingcfg "knative.dev/networking/pkg/config"
	servingfake "knative.dev/serving/pkg/client/clientset/versioned/fake"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"
	routeresources "knative.dev/serving/pkg/reconciler/route/resources"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// The load balancers of the planner's transition matrix.
var agreeLBs = map[string][]netv1alpha1.LoadBalancerIngressStatus{
	"IP":                     {rt.IP("10.0.0.7")},
	"IPv4+IPv6":              {rt.IP("10.0.0.7"), rt.IP("fd00::7")},
	"DomainInternal":         {rt.DomainInternal(rt.GatewayDomain)},
	"DomainInternal-missing": {rt.DomainInternal("missing.kourier-system.svc.cluster.local")},
	"Domain":                 {rt.Domain("lb.example.com")},
	"MeshOnly":               {rt.MeshOnly()},
	"none":                   nil,
}

// agreeStart is a starting state: the objects under the Route's names.
type agreeStart struct {
	name   string
	actual plan.Actual
}

// agreeStarts are the transition matrix's kinds of starting state: none,
// the route reconciler's for each load balancer, somebody else's Service,
// and the controller's own in each mode for each load balancer (its
// Endpoints mirrored).
func agreeStarts(t *testing.T) []agreeStart {
	route := rt.Route(true)
	ctx := rt.WithRouteConfig(context.Background())
	out := []agreeStart{{name: "absent"}, {name: "foreign-owned Service", actual: plan.Actual{Services: []*corev1.Service{{
		ObjectMeta: metav1.ObjectMeta{Namespace: rt.Namespace, Name: rt.RouteName, UID: "someone-else", Labels: map[string]string{"serving.knative.dev/route": rt.RouteName}},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.9.9", Selector: map[string]string{"app": "x"}},
	}}}}}
	for _, lb := range []string{"none", "IP", "DomainInternal", "MeshOnly"} {
		var a plan.Actual
		for _, tag := range []string{"", rt.Tag} {
			pair, err := routeresources.MakeK8sService(ctx, route, tag, rt.Ingress(route, agreeLBs[lb]...), false)
			if err != nil {
				ph, err := routeresources.MakeK8sPlaceholderService(ctx, route, tag)
				if err != nil {
					t.Fatal(err)
				}
				a.Services = append(a.Services, ph)
				continue
			}
			a.Services = append(a.Services, pair.Service)
			if pair.Endpoints != nil {
				a.Endpoints = append(a.Endpoints, pair.Endpoints)
			}
		}
		out = append(out, agreeStart{"route reconciler/" + lb, mirrored(a)})
		// Half-way to Endpoints: ours written and mirrored, the Service
		// not yet headless.
		c := newAgreeCluster(t, mirrored(a), agreeLBs[lb], netcfg.RouteAddressModeEndpoints)
		in, _, err := c.stores(t).Input(c.ctx, route, c.network)
		if err != nil {
			t.Fatal(err)
		}
		if p := plan.Make(in); len(p.Waiting) > 0 {
			out = append(out, agreeStart{"route reconciler/" + lb + ", half-way to Endpoints", mirrored(mustApply(t, in.Actual, p.Ops))})
		}
	}
	for _, m := range netcfg.RouteAddressModes {
		if !m.Managed() {
			continue
		}
		for lb, entries := range agreeLBs {
			c := newAgreeCluster(t, plan.Actual{}, entries, m)
			in, _, err := c.stores(t).Input(c.ctx, route, c.network)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, agreeStart{fmt.Sprintf("ours %s/%s", m, lb), mirrored(mustApply(t, plan.Actual{}, plan.Make(in).Ops))})
		}
	}
	return out
}

// agreeCluster is a fake cluster holding the test Route, its KIngress, the
// gateway Service, the configuration and a starting state.
type agreeCluster struct {
	ctx     context.Context
	network *netcfg.Config
	kube    *kubefake.Clientset
	net     *netfake.Clientset
	clients Clients
}

func newAgreeCluster(t *testing.T, a plan.Actual, lb []netv1alpha1.LoadBalancerIngressStatus, mode netcfg.RouteAddressMode) agreeCluster {
	t.Helper()
	route := rt.Route(true)
	netData := map[string]string{netcfg.RouteAddressModeKey: string(mode)}
	domainData := map[string]string{"example.com": ""}
	objs := []runtime.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "knative-serving", Name: "config-network"}, Data: netData},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "knative-serving", Name: "config-domain"}, Data: domainData},
		rt.GatewayService([]string{"10.96.100.10"}),
	}
	for _, o := range a.Services {
		objs = append(objs, o)
	}
	for _, o := range a.Endpoints {
		objs = append(objs, o)
	}
	for _, o := range a.Slices {
		objs = append(objs, o)
	}
	network, err := netcfg.NewConfigFromMap(netData)
	if err != nil {
		t.Fatal(err)
	}
	// The controller's context, from the same ConfigMaps as its
	// configuration store parses them.
	nc, err := networkingcfg.NewConfigFromMap(netData)
	if err != nil {
		t.Fatal(err)
	}
	domain, err := routecfg.NewDomainFromConfigMap(&corev1.ConfigMap{Data: domainData})
	if err != nil {
		t.Fatal(err)
	}
	c := agreeCluster{
		ctx:     routecfg.ToContext(context.Background(), &routecfg.Config{Domain: domain, Network: nc}),
		network: network,
		kube:    kubefake.NewClientset(objs...),
		net:     netfake.NewSimpleClientset(rt.Ingress(route, lb...)),
	}
	c.clients = Clients{Kube: c.kube, Serving: servingfake.NewSimpleClientset(route), Net: c.net, Server: "https://fake"}
	return c
}

// stores are the controller's informer stores on the cluster, made and
// indexed as NewController makes them.
func (c agreeCluster) stores(t *testing.T) routeaddress.Stores {
	t.Helper()
	all := informers.NewSharedInformerFactory(c.kube, 0)
	ours := informers.NewSharedInformerFactoryWithOptions(c.kube, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = routeaddress.SliceSelector
	}))
	ings := netinformers.NewSharedInformerFactory(c.net, 0)
	s := routeaddress.Stores{
		Services:  all.Core().V1().Services().Informer().GetIndexer(),
		Endpoints: all.Core().V1().Endpoints().Informer().GetIndexer(),
		Slices:    ours.Discovery().V1().EndpointSlices().Informer().GetIndexer(),
		Ingresses: ings.Networking().V1alpha1().Ingresses().Lister(),
	}
	for _, err := range []error{routeaddress.IndexByRoute(s.Services), routeaddress.IndexByRoute(s.Endpoints), routeaddress.IndexSlices(s.Slices)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	all.Start(stop)
	ours.Start(stop)
	ings.Start(stop)
	// cache.WaitForCacheSync polls every 100 ms; these sync at once.
	infs := []cache.SharedIndexInformer{
		all.Core().V1().Services().Informer(), all.Core().V1().Endpoints().Informer(),
		ours.Discovery().V1().EndpointSlices().Informer(), ings.Networking().V1alpha1().Ingresses().Informer(),
	}
	if err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		for _, inf := range infs {
			if !inf.HasSynced() {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		t.Fatal("the informers did not sync:", err)
	}
	return s
}

type agreeOp struct {
	Verb, Kind, Name, Reason string
	AfterMirroring           bool
}

// TestPlanAgreesWithController: on each of the transition matrix's kinds
// of starting state, for each mode and load balancer, kubectl
// route-address plan lists the operations that the controller plans on
// its informers' stores, and those it plans once kube-controller-manager
// has mirrored the Endpoints it waits for.
func TestPlanAgreesWithController(t *testing.T) {
	route := rt.Route(true)
	for _, from := range agreeStarts(t) {
		for _, m := range netcfg.RouteAddressModes {
			for lb, entries := range agreeLBs {
				t.Run(fmt.Sprintf("%s → %s/%s", from.name, m, lb), func(t *testing.T) {
					c := newAgreeCluster(t, from.actual, entries, m)
					in, _, err := c.stores(t).Input(c.ctx, route, c.network)
					if err != nil {
						t.Fatal(err)
					}
					// The controller's plan, and the one it makes once
					// kube-controller-manager has mirrored the Endpoints
					// it waits for.
					var controller []agreeOp
					p := plan.Make(in)
					waiting := p.Waiting
					for round := range 2 {
						for _, op := range p.Ops {
							controller = append(controller, agreeOp{string(op.Verb), string(op.Kind), op.Name(), op.Reason, round > 0})
						}
						if len(p.Waiting) == 0 {
							break
						}
						in.Actual = mirrored(mustApply(t, in.Actual, p.Ops))
						p = plan.Make(in)
					}
					rep, err := c.clients.Plan(context.Background(), Scope{Namespace: rt.Namespace, SystemNamespace: "knative-serving"}, c.network)
					if err != nil {
						t.Fatal(err)
					}
					if len(rep.Routes) != 1 {
						t.Fatalf("the plan has %d Routes, want 1", len(rep.Routes))
					}
					var plugin []agreeOp
					for _, op := range rep.Routes[0].Operations {
						plugin = append(plugin, agreeOp{op.Verb, op.Kind, op.Name, op.Reason, op.Mirrored})
					}
					if diff := cmp.Diff(controller, plugin); diff != "" {
						t.Error("kubectl route-address plan's operations differ from the controller's (-controller, +plugin):", diff)
					}
					if diff := cmp.Diff(waiting, rep.Routes[0].Waiting); diff != "" {
						t.Error("kubectl route-address plan waits for other names than the controller (-controller, +plugin):", diff)
					}
					var blocked []string
					for _, b := range p.Blocked {
						blocked = append(blocked, fmt.Sprintf("%s %s is not controlled by the Route", b.Kind, b.Name))
					}
					if diff := cmp.Diff(blocked, rep.Routes[0].Blocked); diff != "" {
						t.Error("kubectl route-address plan is blocked by other objects than the controller (-controller, +plugin):", diff)
					}
				})
			}
		}
	}
}

// mustApply is applied, failing the test on an error.
func mustApply(t *testing.T, a plan.Actual, ops []plan.Op) plan.Actual {
	t.Helper()
	out, err := applied(a, ops)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
