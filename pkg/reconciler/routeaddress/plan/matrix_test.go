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

package plan_test

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	"knative.dev/pkg/kmap"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	routeresources "knative.dev/serving/pkg/reconciler/route/resources"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
	. "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

var update = flag.Bool("update", false, "rewrite testdata/transitions.golden")

// lb is a load balancer shape the matrix moves to.
type lb struct {
	name    string
	entries []netv1alpha1.LoadBalancerIngressStatus
}

var (
	lbIP           = lb{"IP", []netv1alpha1.LoadBalancerIngressStatus{IP("10.0.0.7")}}
	lbDualStack    = lb{"IPv4+IPv6", []netv1alpha1.LoadBalancerIngressStatus{IP("10.0.0.7"), IP("fd00::7")}}
	lbInternal     = lb{"DomainInternal", []netv1alpha1.LoadBalancerIngressStatus{DomainInternal(GatewayDomain)}}
	lbUnresolvable = lb{"DomainInternal-missing", []netv1alpha1.LoadBalancerIngressStatus{DomainInternal("missing.kourier-system.svc.cluster.local")}}
	// lbUpper is unresolvable and in upper case: the apiserver refuses an
	// ExternalName that is not lower case.
	lbUpper  = lb{"DomainInternal-missing-UPPER", []netv1alpha1.LoadBalancerIngressStatus{DomainInternal("Missing.Kourier-System.svc.cluster.local")}}
	lbDomain = lb{"Domain", []netv1alpha1.LoadBalancerIngressStatus{Domain("lb.example.com")}}
	lbMesh   = lb{"MeshOnly", []netv1alpha1.LoadBalancerIngressStatus{MeshOnly()}}
	lbNone   = lb{"none", nil}

	lbs = []lb{lbIP, lbDualStack, lbInternal, lbUnresolvable, lbUpper, lbDomain, lbMesh, lbNone}
)

var (
	gateway       = GatewayService([]string{"10.96.100.10"})
	gatewayLister = ServiceLister(gateway)
)

// env is one Route, its KIngress and the configuration, as the reconciler
// would see them.
type env struct {
	ctx      context.Context
	route    *v1.Route
	ing      *netv1alpha1.Ingress
	lb       lb
	settings *netcfg.Config
}

func newEnv(l lb, mode netcfg.RouteAddressMode, fb netcfg.RouteAddressFallback) env {
	route := Route(true)
	return env{
		ctx:      WithRouteConfig(context.Background()),
		route:    route,
		ing:      Ingress(route, l.entries...),
		lb:       l,
		settings: &netcfg.Config{RouteAddressMode: mode, RouteAddressExternalNameFallback: fb},
	}
}

// wantAddresses is what every endpoint of a name must hold for each load
// balancer the matrix resolves to addresses, written out rather than
// computed: the address, the port the gateway listens on and the port
// name ("" for those that resolve to none).
var wantAddresses = map[string][]string{
	lbIP.name:        {"10.0.0.7:80/http2"},
	lbDualStack.name: {"10.0.0.7:80/http2", "fd00::7:80/http2"},
	lbInternal.name:  {"10.96.100.10:80/http2"},
}

// addressesOf lists the addresses:port/name of the Endpoints, of the
// slices written by anybody but kube-controller-manager's mirroring, and
// of the slices it mirrored, of the Service name in s.
func addressesOf(s *apiserver, name string) (endpoints, ours, mirrored []string) {
	if ep := s.endpoints[name]; ep != nil {
		for _, ss := range ep.Subsets {
			for _, a := range ss.Addresses {
				for _, p := range ss.Ports {
					endpoints = append(endpoints, fmt.Sprintf("%s:%d/%s", a.IP, p.Port, p.Name))
				}
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.slices)) {
		sl := s.slices[k]
		if sl.Labels[discoveryv1.LabelServiceName] != name {
			continue
		}
		out := &ours
		if sl.Labels[discoveryv1.LabelManagedBy] == names.MirroredBy {
			out = &mirrored
		}
		for _, e := range sl.Endpoints {
			for _, a := range e.Addresses {
				for _, p := range sl.Ports {
					*out = append(*out, fmt.Sprintf("%s:%d/%s", a, *p.Port, *p.Name))
				}
			}
		}
	}
	return endpoints, ours, mirrored
}

var tags = []string{"", Tag}

// input builds the planner's input the way the reconciler does.
func (e env) input(a plan.Actual) (plan.Input, error) {
	in := plan.Input{Owner: e.route, Actual: a, ExternalNameMode: !e.settings.RouteAddressMode.Managed()}
	phs, err := resources.Placeholders(e.ctx, e.route, tags)
	if err != nil {
		return in, err
	}
	src := resources.Source{Ingress: e.ing, Network: e.settings, Resolver: resources.NewResolver(gatewayLister)}
	in.Targets = make([]resources.Addressing, 0, len(tags))
	for _, ph := range phs {
		ad, err := resources.MakeAddressing(e.ctx, e.route, ph, false, src)
		if err != nil {
			return in, err
		}
		in.Targets = append(in.Targets, *ad)
	}
	return in, nil
}

// routeReconciler plays the route reconciler of serving v0.50.0 on the
// simulated apiserver: placeholders, MakeK8sService, its update-or-recreate
// rule, Endpoints subsets, orphans.
func (e env) routeReconciler(s *apiserver) error {
	want := map[string]bool{}
	for _, tag := range tags {
		ph, err := routeresources.MakeK8sPlaceholderService(e.ctx, e.route, tag)
		if err != nil {
			return err
		}
		want[ph.Name] = true
		from := s.services[ph.Name]
		if from == nil {
			if err := s.do(plan.Op{Verb: plan.Create, Kind: plan.KindService, Object: ph}); err != nil {
				return err
			}
			from = s.services[ph.Name]
		} else if !metav1.IsControlledBy(from, e.route) {
			continue
		}
		pair, err := routeresources.MakeK8sService(e.ctx, e.route, tag, e.ing, routeresources.IsClusterLocalService(from))
		if err != nil {
			continue
		}
		to := pair.Service
		canUpdate := from.Spec.Type == corev1.ServiceTypeExternalName ||
			from.Spec.Type == to.Spec.Type && (to.Spec.Type != corev1.ServiceTypeClusterIP || from.Spec.ClusterIP == to.Spec.ClusterIP ||
				from.Spec.ClusterIP != corev1.ClusterIPNone && to.Spec.ClusterIP == "")
		if canUpdate && to.Spec.Type == corev1.ServiceTypeClusterIP && to.Spec.ClusterIP == "" &&
			from.Spec.Type == corev1.ServiceTypeClusterIP && from.Spec.ClusterIP != corev1.ClusterIPNone {
			to.Spec.ClusterIP = from.Spec.ClusterIP
		}
		// A write the apiserver refuses (an ExternalName in upper case)
		// fails the route reconciler's reconcile of this name; it is retried, and
		// refused again.
		if canUpdate {
			existing := from.DeepCopy()
			existing.Spec = to.Spec
			existing.Labels = kmap.Union(from.Labels, to.Labels)
			existing.Annotations = kmap.Union(from.Annotations, to.Annotations)
			if err := s.do(plan.Op{Verb: plan.Update, Kind: plan.KindService, Object: existing}); err != nil {
				continue
			}
		} else {
			if err := s.do(plan.Op{Verb: plan.Delete, Kind: plan.KindService, Object: from}); err != nil {
				return err
			}
			if err := s.do(plan.Op{Verb: plan.Create, Kind: plan.KindService, Object: to}); err != nil {
				continue
			}
		}
		ep := s.endpoints[ph.Name]
		switch {
		case ep != nil && pair.Endpoints != nil:
			existing := ep.DeepCopy()
			existing.Subsets = pair.Endpoints.Subsets
			err = s.do(plan.Op{Verb: plan.Update, Kind: plan.KindEndpoints, Object: existing})
		case ep == nil && pair.Endpoints != nil:
			err = s.do(plan.Op{Verb: plan.Create, Kind: plan.KindEndpoints, Object: pair.Endpoints})
		case ep != nil && pair.Endpoints == nil:
			err = s.do(plan.Op{Verb: plan.Delete, Kind: plan.KindEndpoints, Object: ep})
		}
		if err != nil {
			return err
		}
	}
	for _, n := range slices.Sorted(maps.Keys(s.services)) {
		svc := s.services[n]
		if want[n] || svc.Labels["serving.knative.dev/route"] != e.route.Name {
			continue
		}
		delete(s.services, n)
		delete(s.endpoints, n)
	}
	return nil
}

// from is a starting state of the matrix.
type from struct {
	name  string
	build func() (*apiserver, error)
	// ours: the state was made by routeaddress from the load balancer lb,
	// so after a release it must look as the route reconciler alone would have made
	// it, had it been in charge all along (see reference); otherwise as
	// the route reconciler alone makes of the same state.
	ours bool
	lb   lb
}

// reference is the state the route reconciler alone starts from, for comparison with
// a release from f to the load balancer l.
func (f from) reference(before plan.Actual, l lb) (*apiserver, error) {
	if !f.ours {
		return newAPIServer(before), nil
	}
	if len(l.entries) > 1 {
		// The route reconciler refuses the load balancer: it will not reshape a
		// headless Service of ours, which goes, and the route reconciler's placeholder
		// takes its place.
		for _, svc := range before.Services {
			if svc.Spec.ClusterIP == corev1.ClusterIPNone {
				return newAPIServer(plan.Actual{}), nil
			}
		}
	}
	return byRouteReconciler(f.lb)()
}

func ours(l lb, mode netcfg.RouteAddressMode) func() (*apiserver, error) {
	return func() (*apiserver, error) {
		e := newEnv(l, mode, netcfg.RouteAddressFallbackEnabled)
		s := newAPIServer(plan.Actual{})
		in, err := e.input(plan.Actual{})
		if err != nil {
			return nil, err
		}
		return s, s.apply(plan.Make(in).Ops)
	}
}

func byRouteReconciler(l lb) func() (*apiserver, error) {
	return func() (*apiserver, error) {
		s := newAPIServer(plan.Actual{})
		return s, newEnv(l, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled).routeReconciler(s)
	}
}

// froms are the starting states: the route reconciler's, ours in every managed mode
// for every load balancer, and a few made by hand.
var froms = append([]from{
	{"absent", func() (*apiserver, error) { return newAPIServer(plan.Actual{}), nil }, false, lbNone},
	{"ExternalName placeholder", byRouteReconciler(lbNone), false, lbNone},
	{"ExternalName", byRouteReconciler(lbInternal), false, lbInternal},
	{"headless+Endpoints (route reconciler, IP)", byRouteReconciler(lbIP), false, lbIP},
	{"mesh ClusterIP", byRouteReconciler(lbMesh), false, lbMesh},
	{"orphaned tag", func() (*apiserver, error) {
		s, err := ours(lbIP, netcfg.RouteAddressModeEndpointsAndSlices)()
		if err != nil {
			return nil, err
		}
		// Rename the tag's objects as if the Route had a tag "old" before.
		svc := s.services[TagService].DeepCopy()
		svc.Name = "old-" + RouteName
		s.services[svc.Name] = svc
		ep := s.endpoints[TagService].DeepCopy()
		ep.Name = svc.Name
		s.endpoints[ep.Name] = ep
		sl := s.slices[TagService+"-ipv4"].DeepCopy()
		sl.Name, sl.Labels[discoveryv1.LabelServiceName] = svc.Name+"-ipv4", svc.Name
		sl.OwnerReferences[0].Name = svc.Name
		s.slices[sl.Name] = sl
		return s, nil
	}, true, lbIP},
	{"slices that claim our manager", func() (*apiserver, error) {
		s, err := ours(lbInternal, netcfg.RouteAddressModeEndpointSlices)()
		if err != nil {
			return nil, err
		}
		// Somebody's slices labelled with our managed-by value: one in
		// place of the Route's own (no owner, another address), one more
		// under another name.
		sl := s.slices[RouteName+"-ipv4"].DeepCopy()
		sl.OwnerReferences, sl.UID = nil, "someone-else"
		sl.Endpoints = []discoveryv1.Endpoint{{Addresses: []string{"10.99.0.7"}}}
		s.slices[sl.Name] = sl
		extra := sl.DeepCopy()
		extra.Name, extra.UID = RouteName+"-extra", "someone-else-too"
		extra.Endpoints = []discoveryv1.Endpoint{{Addresses: []string{"10.99.0.8"}}}
		s.slices[extra.Name] = extra
		return s, nil
	}, true, lbInternal},
	{"foreign-owned Service", func() (*apiserver, error) {
		s := newAPIServer(plan.Actual{})
		foreign := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: Namespace, Name: RouteName, UID: "someone-else",
				Labels: map[string]string{"serving.knative.dev/route": RouteName},
			},
			Spec: corev1.ServiceSpec{
				Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.9.9", Selector: map[string]string{"app": "x"},
				Ports: []corev1.ServicePort{{Name: "http", Port: 80}},
			},
		}
		s.services[foreign.Name] = foreign
		return s, nil
	}, false, lbNone},
}, oursEverywhere()...)

func oursEverywhere() []from {
	var out []from
	for _, m := range netcfg.RouteAddressModes {
		if !m.Managed() {
			continue
		}
		for _, l := range lbs {
			if l.name == lbNone.name {
				continue // that is "absent" → m/none
			}
			out = append(out, from{fmt.Sprintf("ours %s/%s", m, l.name), ours(l, m), true, l})
		}
	}
	return out
}

type to struct {
	mode netcfg.RouteAddressMode
	fb   netcfg.RouteAddressFallback
	lb   lb
}

func tos() []to {
	var out []to
	for _, m := range netcfg.RouteAddressModes {
		for _, l := range lbs {
			out = append(out, to{m, netcfg.RouteAddressFallbackEnabled, l})
		}
		if m.Managed() {
			out = append(out, to{m, netcfg.RouteAddressFallbackDisabled, lbUnresolvable})
		}
	}
	return out
}

// TestTransitionMatrix plans every move from each starting state to each
// mode and load balancer, applies the plan to the simulated apiserver
// (which refuses what the real one refuses), and checks that one more
// plan has nothing left to do, that the order rules hold and that nothing
// foreign was written. The plans are recorded in testdata/transitions.golden.
func TestTransitionMatrix(t *testing.T) {
	var golden strings.Builder
	for _, f := range froms {
		for _, tt := range tos() {
			row := fmt.Sprintf("%s → %s/%s fallback=%s", f.name, tt.mode, tt.lb.name, tt.fb)
			t.Run(row, func(t *testing.T) {
				s, err := f.build()
				if err != nil {
					t.Fatal("building the starting state:", err)
				}
				s.mirror(true)
				before := s.actual()
				e := newEnv(tt.lb, tt.mode, tt.fb)
				in, err := e.input(before)
				if err != nil {
					t.Fatal(err)
				}
				p := plan.Make(in)
				fmt.Fprintf(&golden, "%s\n%s", row, describeFrom(p, before))

				checkForeignUntouched(t, e.route, before, p)
				checkOrder(t, p)
				checkAnswersThroughout(t, before, p)
				if err := s.apply(p.Ops); err != nil {
					t.Fatal("the apiserver refused the plan:", err)
				}
				switch {
				case tt.mode.Managed():
					afterMirroring(t, s, p, e.input, func(now plan.Actual, p plan.Plan) {
						fmt.Fprintf(&golden, "  once mirrored:\n%s", describeFrom(p, now))
						checkForeignUntouched(t, e.route, now, p)
						checkOrder(t, p)
						checkAnswersThroughout(t, now, p)
					})
					checkConverged(t, e, s, before)
				case f.ours && tt.lb.name == lbNone.name:
					// The load balancer is gone: our last addresses stay
					// until the route reconciler has a shape again; only orphans go.
					for _, op := range p.Ops {
						if op.Reason != "orphan" {
							t.Errorf("released with no load balancer: %s %s %s (%s)", op.Verb, op.Kind, op.Name(), op.Reason)
						}
					}
				default:
					reference, err := f.reference(before, tt.lb)
					if err != nil {
						t.Fatal("building the reference state:", err)
					}
					// The apiserver refuses the route reconciler's own upper-case
					// ExternalName: where the route reconciler writes one, what it
					// leaves depends on where it failed, not on us.
					compare := tt.lb.name != lbUpper.name && f.lb.name != lbUpper.name
					checkReleased(t, e, s, reference, compare)
				}
			})
		}
	}
	path := "testdata/transitions.golden"
	if *update && flag.Lookup("test.run").Value.String() != "" {
		t.Fatal("-update rewrites the whole golden file: run it without -run")
	}
	if *update {
		if err := os.WriteFile(path, []byte(golden.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err, "(run go test -run TestTransitionMatrix -update)")
	}
	if diff := cmp.Diff(string(want), golden.String()); diff != "" {
		t.Error("plans differ from testdata/transitions.golden (-want +got); if intended, run with -update:\n", diff)
	}
}

// afterMirroring applies the plans that follow p while it waits for
// kube-controller-manager to mirror Endpoints (apply plays the mirroring),
// calling check, if any, on each before it is applied.
func afterMirroring(t *testing.T, s *apiserver, p plan.Plan, input func(plan.Actual) (plan.Input, error), check func(now plan.Actual, p plan.Plan)) {
	t.Helper()
	for round := 1; len(p.Waiting) > 0; round++ {
		if round == 3 {
			t.Fatalf("still waiting for mirroring after %d plans: %v", round, p.Waiting)
		}
		now := s.actual()
		in, err := input(now)
		if err != nil {
			t.Fatal(err)
		}
		p = plan.Make(in)
		if check != nil {
			check(now, p)
		}
		if err := s.apply(p.Ops); err != nil {
			t.Fatalf("the apiserver refused the plan once mirrored: %v\n%s", err, describe(p))
		}
	}
}

// routeOwns reports whether the Route owns o, one of the objects of a: it
// controls it, or, for an EndpointSlice, o is controlled by a Service of
// the name it serves, or o carries our managed-by value for a name whose
// Service is the Route's or missing (it claims to be ours).
func routeOwns(o metav1.Object, route metav1.Object, a plan.Actual) bool {
	if s, ok := o.(*discoveryv1.EndpointSlice); ok {
		svc, _ := find(a, plan.KindService, s.Labels[discoveryv1.LabelServiceName]).(*corev1.Service)
		claims := s.Labels[discoveryv1.LabelManagedBy] == names.ManagedBy && (svc == nil || metav1.IsControlledBy(svc, route))
		return claims || plan.OursSlice(s, s.Labels[discoveryv1.LabelServiceName])
	}
	return metav1.IsControlledBy(o, route)
}

func checkForeignUntouched(t *testing.T, owner metav1.Object, before plan.Actual, p plan.Plan) {
	t.Helper()
	for _, op := range p.Ops {
		if op.Verb != plan.Create && !routeOwns(op.Object, owner, before) {
			t.Errorf("%s %s %s is not controlled by the Route", op.Verb, op.Kind, op.Name())
		}
	}
}

// checkOrder: endpoints of a name are written before its Service turns
// from ExternalName to headless; endpoints and slices that are only deleted
// come after every Service operation.
func checkOrder(t *testing.T, p plan.Plan) {
	t.Helper()
	lastService := -1
	for i, op := range p.Ops {
		if op.Kind == plan.KindService {
			lastService = i
		}
	}
	for i, op := range p.Ops {
		if op.Kind == plan.KindService && op.Verb == plan.Update {
			svc := op.Object.(*corev1.Service)
			for _, later := range p.Ops[i+1:] {
				if later.Kind != plan.KindService && later.Verb != plan.Delete && later.Service() == svc.Name {
					t.Errorf("%s %s %s comes after the Service update it serves", later.Verb, later.Kind, later.Name())
				}
			}
		}
		replaced := op.Verb == plan.Delete && i+1 < len(p.Ops) && p.Ops[i+1].Verb == plan.Create && p.Ops[i+1].Name() == op.Name()
		if op.Kind != plan.KindService && op.Verb == plan.Delete && !replaced && i < lastService {
			t.Errorf("%s %s %s comes before a Service operation", op.Verb, op.Kind, op.Name())
		}
	}
}

// checkConverged checks that the state s is what the targets ask for, and
// that nothing is left to do. A name with no load balancer (NoLoadBalancer) keeps
// what it had in before.
func checkConverged(t *testing.T, e env, s *apiserver, before plan.Actual) {
	t.Helper()
	old := newAPIServer(before)
	after := s.actual()
	in, err := e.input(after)
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Make(in)
	if len(p.Ops) != 0 {
		t.Errorf("second plan is not empty:\n%s", describe(p))
	}
	// A name with anything the Route does not control is left alone.
	blocked := map[string]bool{}
	for _, tg := range in.Targets {
		if svc := s.services[tg.Name]; svc != nil && !metav1.IsControlledBy(svc, e.route) {
			blocked[tg.Name] = true
		}
		if ep := s.endpoints[tg.Name]; ep != nil && !metav1.IsControlledBy(ep, e.route) {
			blocked[tg.Name] = true
		}
		for _, sl := range s.slices {
			if sl.Labels[discoveryv1.LabelServiceName] == tg.Name && sl.Labels[discoveryv1.LabelManagedBy] == names.ManagedBy && !routeOwns(sl, e.route, s.actual()) {
				blocked[tg.Name] = true
			}
		}
	}
	for _, tg := range in.Targets {
		svc := s.services[tg.Name]
		if blocked[tg.Name] {
			if svc != nil && !metav1.IsControlledBy(svc, e.route) {
				eps, sls, _ := addressesOf(s, tg.Name)
				if len(eps)+len(sls) > 0 && s.endpoints[tg.Name] != nil && metav1.IsControlledBy(s.endpoints[tg.Name], e.route) {
					t.Errorf("our Endpoints %s hold addresses for somebody else's Service", tg.Name)
				}
			}
			continue
		}
		if svc == nil {
			t.Errorf("Service %s missing", tg.Name)
			continue
		}
		if tg.NoLoadBalancer {
			if was := old.services[tg.Name]; was != nil && !equality.Semantic.DeepEqual(was, svc) {
				t.Errorf("Service %s changed with no load balancer", tg.Name)
			}
			if !equality.Semantic.DeepEqual(old.endpoints[tg.Name], s.endpoints[tg.Name]) {
				t.Errorf("Endpoints %s changed with no load balancer", tg.Name)
			}
			continue
		}
		if svc.Spec.Type != tg.Service.Spec.Type || svc.Spec.ExternalName != tg.Service.Spec.ExternalName ||
			(tg.Service.Spec.ClusterIP == corev1.ClusterIPNone) != (svc.Spec.ClusterIP == corev1.ClusterIPNone) {
			t.Errorf("Service %s is %s %q %q, want %s %q %q", tg.Name, svc.Spec.Type, svc.Spec.ClusterIP, svc.Spec.ExternalName,
				tg.Service.Spec.Type, tg.Service.Spec.ClusterIP, tg.Service.Spec.ExternalName)
		}
		if ep := s.endpoints[tg.Name]; (ep != nil) != (tg.Endpoints != nil) {
			t.Errorf("Endpoints %s exists = %v, want %v", tg.Name, ep != nil, tg.Endpoints != nil)
		} else if ep != nil && !equality.Semantic.DeepEqual(ep.Subsets[0].Addresses, tg.Endpoints.Subsets[0].Addresses) {
			t.Errorf("Endpoints %s addresses = %v, want %v", tg.Name, ep.Subsets[0].Addresses, tg.Endpoints.Subsets[0].Addresses)
		}
		for _, want := range tg.Slices {
			if got := s.slices[want.Name]; got == nil || !equality.Semantic.DeepEqual(got.Endpoints, want.Endpoints) {
				t.Errorf("EndpointSlice %s = %v, want endpoints %v", want.Name, got, want.Endpoints)
			}
		}
		// What a user checks, against the literal table: the addresses
		// and ports each kind of endpoints holds in this mode.
		if want, ok := wantAddresses[e.lb.name]; ok {
			eps, sls, mirrored := addressesOf(s, tg.Name)
			if wantEps := map[bool][]string{true: want}[e.settings.RouteAddressMode.WritesEndpoints()]; fmt.Sprint(eps) != fmt.Sprint(wantEps) {
				t.Errorf("Endpoints %s hold %v, want %v", tg.Name, eps, wantEps)
			}
			if wantSls := map[bool][]string{true: want}[e.settings.RouteAddressMode.WritesEndpointSlices()]; fmt.Sprint(sls) != fmt.Sprint(wantSls) {
				t.Errorf("EndpointSlices of %s hold %v, want %v", tg.Name, sls, wantSls)
			}
			// Kubernetes mirrors our Endpoints unless we write the slices.
			if wantMirrored := map[bool][]string{true: want}[!e.settings.RouteAddressMode.WritesEndpointSlices()]; fmt.Sprint(mirrored) != fmt.Sprint(wantMirrored) {
				t.Errorf("mirrored EndpointSlices of %s hold %v, want %v", tg.Name, mirrored, wantMirrored)
			}
		}
		if tg.Service.Spec.Type == corev1.ServiceTypeExternalName && e.settings.RouteAddressExternalNameFallback == netcfg.RouteAddressFallbackDisabled {
			t.Errorf("Service %s is ExternalName with the fallback disabled", tg.Name)
		}
	}
	wanted := map[string]bool{}
	for _, tg := range in.Targets {
		wanted[tg.Name] = true
	}
	for n, svc := range s.services {
		if !wanted[n] && metav1.IsControlledBy(svc, e.route) {
			t.Errorf("orphan Service %s left", n)
		}
	}
	wantSlices := 0
	for _, tg := range in.Targets {
		switch {
		case blocked[tg.Name]:
			// Foreign slices stay; ours go when the Service is not ours.
			for _, sl := range s.slices {
				if sl.Labels[discoveryv1.LabelManagedBy] == names.MirroredBy {
					continue
				}
				if sl.Labels[discoveryv1.LabelServiceName] == tg.Name && !routeOwns(sl, e.route, s.actual()) {
					wantSlices++
				} else if sl.Labels[discoveryv1.LabelServiceName] == tg.Name && s.services[tg.Name] != nil && !metav1.IsControlledBy(s.services[tg.Name], e.route) {
					t.Errorf("our EndpointSlice %s serves somebody else's Service %s", sl.Name, tg.Name)
				} else if sl.Labels[discoveryv1.LabelServiceName] == tg.Name {
					wantSlices++
				}
			}
		case tg.NoLoadBalancer:
			for _, sl := range old.slices {
				if sl.Labels[discoveryv1.LabelServiceName] == tg.Name && sl.Labels[discoveryv1.LabelManagedBy] != names.MirroredBy {
					wantSlices++
				}
			}
		case s.services[tg.Name] != nil && metav1.IsControlledBy(s.services[tg.Name], e.route):
			wantSlices += len(tg.Slices)
		}
	}
	var left []string
	for _, n := range slices.Sorted(maps.Keys(s.slices)) {
		if s.slices[n].Labels[discoveryv1.LabelManagedBy] != names.MirroredBy {
			left = append(left, n)
		}
	}
	if len(left) != wantSlices {
		t.Errorf("%d EndpointSlices left, want %d: %v", len(left), wantSlices, left)
	}
}

// checkReleased lets the route reconciler and us take turns until neither writes, then
// checks the cluster is what the route reconciler alone makes of the reference state.
func checkReleased(t *testing.T, e env, s, fresh *apiserver, compare bool) {
	t.Helper()
	for round := 0; ; round++ {
		if round == 4 {
			t.Fatal("the route reconciler and the planner did not settle in 4 rounds")
		}
		if err := e.routeReconciler(s); err != nil {
			t.Fatal("route reconciler:", err)
		}
		s.mirror(true)
		now := s.actual()
		in, err := e.input(now)
		if err != nil {
			t.Fatal(err)
		}
		p := plan.Make(in)
		if len(p.Ops) == 0 && len(p.Waiting) == 0 {
			break
		}
		checkAnswersThroughout(t, now, p)
		if err := s.apply(p.Ops); err != nil {
			t.Fatal("the apiserver refused the plan:", err)
		}
	}
	for n, sl := range s.slices {
		if sl.Labels[discoveryv1.LabelManagedBy] == names.ManagedBy {
			t.Errorf("EndpointSlice %s of ours left in ExternalName mode", n)
		}
	}
	for n, ep := range s.endpoints {
		if _, ok := ep.Labels[discoveryv1.LabelSkipMirror]; ok {
			t.Errorf("Endpoints %s still labelled skip-mirror in ExternalName mode", n)
		}
		if _, ok := ep.Labels[names.MarkLabel]; ok {
			t.Errorf("Endpoints %s still marked ours in ExternalName mode", n)
		}
	}
	if !compare {
		return
	}
	// What the route reconciler alone makes of the reference state.
	if err := e.routeReconciler(fresh); err != nil {
		t.Fatal(err)
	}
	for n, want := range fresh.services {
		got := s.services[n]
		if got == nil {
			t.Errorf("Service %s missing, the route reconciler alone has it", n)
			continue
		}
		if !metav1.IsControlledBy(got, e.route) {
			continue // the foreign Service stays foreign
		}
		if got.Spec.Type != want.Spec.Type || got.Spec.ExternalName != want.Spec.ExternalName ||
			(got.Spec.ClusterIP == corev1.ClusterIPNone) != (want.Spec.ClusterIP == corev1.ClusterIPNone) {
			t.Errorf("Service %s = %s %q %q, the route reconciler alone makes %s %q %q", n,
				got.Spec.Type, got.Spec.ClusterIP, got.Spec.ExternalName, want.Spec.Type, want.Spec.ClusterIP, want.Spec.ExternalName)
		}
		if (s.endpoints[n] != nil) != (fresh.endpoints[n] != nil) {
			t.Errorf("Endpoints %s exists = %v, the route reconciler alone: %v", n, s.endpoints[n] != nil, fresh.endpoints[n] != nil)
		}
	}
}

// answers reports whether a DNS lookup of the Service name would get an
// answer in s: a CNAME, a cluster IP, or a ready address in an
// EndpointSlice of a headless Service (CoreDNS reads slices, not
// Endpoints).
func answers(s *apiserver, name string) bool {
	svc := s.services[name]
	if svc == nil {
		return false
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName || svc.Spec.ClusterIP != corev1.ClusterIPNone {
		return true
	}
	for _, sl := range s.slices {
		if sl.Labels[discoveryv1.LabelServiceName] != name {
			continue
		}
		for _, e := range sl.Endpoints {
			if len(e.Addresses) > 0 && ptr.Deref(e.Conditions.Ready, true) {
				return true
			}
		}
	}
	return false
}

// checkAnswersThroughout replays p on before one operation at a time: a
// name that answers before the plan and after it (once mirrored) answers
// after every operation, unless the plan recreates its Service (ClusterIP
// ↔ ExternalName is immutable), the one gap there is. Mirroring takes its
// time: while the plan runs, a mirrored slice goes as soon as its
// Endpoints stop being mirrored, and none is made.
func checkAnswersThroughout(t *testing.T, before plan.Actual, p plan.Plan) {
	t.Helper()
	end := newAPIServer(before)
	if err := end.apply(p.Ops); err != nil {
		return // reported by the caller
	}
	s := newAPIServer(before)
	recreated := map[string]bool{}
	for _, op := range p.Ops {
		if op.Kind == plan.KindService && op.Verb == plan.Delete {
			recreated[op.Name()] = true
		}
	}
	var watched []string
	for _, name := range slices.Sorted(maps.Keys(s.services)) {
		if answers(s, name) && answers(end, name) && !recreated[name] {
			watched = append(watched, name)
		}
	}
	created := map[string]types.UID{}
	for i, op := range p.Ops {
		op, err := plan.BindOwner(op, created)
		if err == nil {
			err = s.do(op)
		}
		if err != nil {
			return
		}
		if op.Kind == plan.KindService && op.Verb == plan.Create {
			created[op.Name()] = s.services[op.Name()].UID
		}
		s.collectGarbage()
		s.mirror(false)
		for _, name := range watched {
			if !answers(s, name) {
				t.Errorf("%s answers no address after operation %d, %s %s %s (%s)", name, i+1, op.Verb, op.Kind, op.Name(), op.Reason)
			}
		}
	}
}
