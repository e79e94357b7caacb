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
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "knative.dev/serving/pkg/apis/serving/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	rnames "knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
	. "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

var tagPool = []string{"a", "b", "c"}

// withTags is env with the Route's traffic tags replaced.
func (e env) withTags(ts []string) env {
	r := e.route.DeepCopy()
	r.Spec.Traffic = r.Spec.Traffic[:1]
	for _, t := range ts {
		r.Spec.Traffic = append(r.Spec.Traffic, v1.TrafficTarget{Tag: t, RevisionName: "hello-00001", LatestRevision: new(bool)})
	}
	e.route = r
	return e
}

// inputTags is input for the Route's own name and the given tags.
func (e env) inputTags(a plan.Actual, ts []string) (plan.Input, error) {
	saved := tags
	tags = append([]string{""}, ts...)
	defer func() { tags = saved }()
	return e.input(a)
}

// withTagsGlobal runs fn with the matrix's tags set to the Route's own
// name and ts (checkConverged reads them).
func withTagsGlobal(ts []string, fn func()) {
	saved := tags
	tags = append([]string{""}, ts...)
	defer func() { tags = saved }()
	fn()
}

// foreignLabels records the objects (by UID) that carry a label someone
// else added.
func foreignLabels(s *apiserver) map[types.UID]string {
	out := map[types.UID]string{}
	for _, o := range s.services {
		if o.Labels["user/extra"] != "" {
			out[o.UID] = "Service " + o.Name
		}
	}
	for _, o := range s.slices {
		if o.Labels["user/extra"] != "" {
			out[o.UID] = "EndpointSlice " + o.Name
		}
	}
	for _, o := range s.endpoints {
		if o.Annotations["endpoints.kubernetes.io/last-change-trigger-time"] != "" {
			out[o.UID] = "Endpoints " + o.Name
		}
	}
	return out
}

// TestPlanIsIdempotent walks random sequences of mode, fallback, load
// balancer and tag changes. After each step the plan is applied to the
// simulated apiserver, which adds its defaults; the state must then be
// what the targets ask for (checkConverged), planning again must give
// nothing, and labels and annotations others added must survive every
// update. Users adding labels or the apiserver changing defaulted fields
// must not cause writes either.
func TestPlanIsIdempotent(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0))
			s := newAPIServer(plan.Actual{})
			managedModes := netcfg.RouteAddressModes[1:]
			for step := range 25 {
				mode := managedModes[rng.IntN(len(managedModes))]
				fb := netcfg.RouteAddressFallbacks[rng.IntN(2)]
				l := lbs[rng.IntN(len(lbs))]
				var ts []string
				for _, tg := range tagPool {
					if rng.IntN(2) == 0 {
						ts = append(ts, tg)
					}
				}
				e := newEnv(l, mode, fb).withTags(ts)
				in, err := e.inputTags(s.actual(), ts)
				if err != nil {
					t.Fatal(err)
				}
				p := plan.Make(in)
				before := s.actual()
				marked := foreignLabels(s)
				if err := s.apply(p.Ops); err != nil {
					t.Fatalf("step %d (%s %s %s tags %v): apiserver refused: %v\n%s", step, mode, fb, l.name, ts, err, describe(p))
				}
				afterMirroring(t, s, p, func(a plan.Actual) (plan.Input, error) { return e.inputTags(a, ts) }, nil)
				withTagsGlobal(ts, func() { checkConverged(t, e, s, before) })
				if t.Failed() {
					t.Fatalf("step %d (%s %s %s tags %v) did not converge:\n%s", step, mode, fb, l.name, ts, describe(p))
				}
				for uid, what := range marked {
					if now, ok := foreignLabels(s)[uid]; !ok && stillThere(s, uid) {
						t.Fatalf("step %d: %s lost a label or annotation someone else added (%s)", step, what, now)
					}
				}
				disturb(rng, s)
				in, err = e.inputTags(s.actual(), ts)
				if err != nil {
					t.Fatal(err)
				}
				if again := plan.Make(in); len(again.Ops) != 0 {
					t.Fatalf("step %d (%s %s %s tags %v): second plan not empty:\n%s", step, mode, fb, l.name, ts, describe(again))
				}
			}
		})
	}
}

// stillThere reports whether an object with the UID exists.
func stillThere(s *apiserver, uid types.UID) bool {
	for _, o := range s.services {
		if o.UID == uid {
			return true
		}
	}
	for _, o := range s.slices {
		if o.UID == uid {
			return true
		}
	}
	for _, o := range s.endpoints {
		if o.UID == uid {
			return true
		}
	}
	return false
}

// disturb makes changes that are not ours and must not be undone: extra
// labels and annotations, server-side defaults flipping.
func disturb(rng *rand.Rand, s *apiserver) {
	for _, svc := range s.services {
		if rng.IntN(3) == 0 {
			if svc.Labels == nil {
				svc.Labels = map[string]string{}
			}
			svc.Labels["user/extra"] = "1"
		}
		if rng.IntN(3) == 0 && svc.Spec.ClusterIP == corev1.ClusterIPNone {
			p := corev1.IPFamilyPolicySingleStack
			svc.Spec.IPFamilyPolicy, svc.Spec.IPFamilies = &p, []corev1.IPFamily{corev1.IPv4Protocol}
		}
	}
	for _, ep := range s.endpoints {
		if rng.IntN(3) == 0 {
			if ep.Annotations == nil {
				ep.Annotations = map[string]string{}
			}
			ep.Annotations["endpoints.kubernetes.io/last-change-trigger-time"] = "2026-11-29T00:00:00Z"
		}
	}
	for _, sl := range s.slices {
		if rng.IntN(3) == 0 && sl.Labels[discoveryv1.LabelManagedBy] != rnames.MirroredBy {
			sl.Labels["user/extra"] = "1"
		}
	}
}

// FuzzPlan feeds the planner malformed and hostile actual states: objects
// owned by someone else, wrong clusterIPs, slices of the wrong family, stray
// labels. The plan must never write an object the Route does not control,
// the apiserver must accept it, and a managed mode must then be converged.
func FuzzPlan(f *testing.F) {
	// One seed per disturbance of mutate, on a state that has every kind
	// of object (ours in EndpointsAndSlices with an IP), planned in
	// EndpointsAndSlices: each seed changes something the plan must deal
	// with. The tag's name gets the odd ones (the high bit picks the name).
	full := slices.IndexFunc(froms, func(f from) bool { return f.name == "ours EndpointsAndSlices/IP" })
	mode := byte(slices.Index(netcfg.RouteAddressModes, netcfg.RouteAddressModeEndpointsAndSlices))
	for c := byte(1); c <= 9; c++ {
		name := byte(0)
		if c%2 == 1 {
			name = 0x80
		}
		f.Add([]byte{mode, 0, 0, byte(full), name | c})
	}
	// A few more: other modes, load balancers and starting states.
	for _, seed := range [][]byte{
		{0, 0, 0, 0, 0},
		{1, 1, 2, 3, 0x81, 0x04},
		{2, 0, 5, 7, 0x09, 0x83},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 5 {
			return
		}
		at := func(i int) int {
			if i < len(data) {
				return int(data[i])
			}
			return 0
		}
		mode := netcfg.RouteAddressModes[at(0)%len(netcfg.RouteAddressModes)]
		fb := netcfg.RouteAddressFallbacks[at(1)%2]
		l := lbs[at(2)%len(lbs)]
		start, err := froms[at(3)%len(froms)].build()
		if err != nil {
			t.Fatal(err)
		}
		mutate(start, data[4:])

		e := newEnv(l, mode, fb)
		before := start.actual()
		in, err := e.input(before)
		if err != nil {
			t.Fatal(err)
		}
		p := plan.Make(in)
		for _, op := range p.Ops {
			if op.Verb != plan.Create && !routeOwns(op.Object, e.route, before) {
				t.Fatalf("%s %s %s is not controlled by the Route", op.Verb, op.Kind, op.Name())
			}
			if op.Verb == plan.Create {
				if o := find(before, op.Kind, op.Name()); o != nil && !routeOwns(o, e.route, before) {
					t.Fatalf("Create %s %s over an object the Route does not control", op.Kind, op.Name())
				}
			}
		}
		if err := start.apply(p.Ops); err != nil {
			t.Fatalf("apiserver refused: %v\n%s", err, describe(p))
		}
		if mode.Managed() {
			afterMirroring(t, start, p, e.input, nil)
			checkConverged(t, e, start, before)
		}
	})
}

// mutate applies one disturbance per byte to the state.
func mutate(s *apiserver, ops []byte) {
	for i, b := range ops {
		names := []string{RouteName, TagService}
		name := names[int(b>>7)]
		switch b & 0x0f {
		case 1: // someone else's Service takes the name
			s.services[name] = &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name, UID: "foreign"},
				Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.50.50"},
			}
		case 2: // someone else's Endpoints
			s.endpoints[name] = &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name, UID: "foreign"}}
		case 3: // a slice with our label but not ours
			n := name + "-ipv4"
			s.slices[n] = &discoveryv1.EndpointSlice{
				ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: n, UID: "foreign", Labels: map[string]string{
					discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: "routeaddress-controller.knative.dev",
				}},
				AddressType: discoveryv1.AddressTypeIPv4,
			}
		case 4: // our slice with the wrong family
			if sl := s.slices[name+"-ipv4"]; sl != nil {
				sl.AddressType = discoveryv1.AddressTypeIPv6
			}
		case 5: // a Service of ours with an allocated IP
			if svc := s.services[name]; svc != nil && svc.Spec.Type != corev1.ServiceTypeExternalName {
				svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "10.96.77.77", []string{"10.96.77.77"}
			}
		case 6: // extra port and a selector
			if svc := s.services[name]; svc != nil {
				svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "x", Port: int32(1000 + i), Protocol: corev1.ProtocolTCP})
				svc.Spec.Selector = map[string]string{"app": "x"}
			}
		case 7: // labels stripped
			for _, sl := range s.slices {
				delete(sl.Labels, "serving.knative.dev/route")
			}
			if ep := s.endpoints[name]; ep != nil {
				ep.Labels = nil
			}
		case 8: // Endpoints with wrong addresses and the skip-mirror label
			if ep := s.endpoints[name]; ep != nil {
				ep.Subsets = []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "192.0.2.99"}}}}
				if ep.Labels == nil {
					ep.Labels = map[string]string{}
				}
				ep.Labels[discoveryv1.LabelSkipMirror] = "true"
			}
		case 9: // the Service disappears
			delete(s.services, name)
		}
	}
}
