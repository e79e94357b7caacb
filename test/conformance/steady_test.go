//go:build e2e

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

package conformance

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	duckv1 "knative.dev/pkg/apis/duck/v1"
	"knative.dev/serving/pkg/apis/serving/v1beta1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

func needLocal(t *testing.T) {
	t.Helper()
	if env.local == nil {
		skipOrFail(t, "needs the local control plane (audit log, controller restarts)")
	}
}

// restartController stops the controller and starts it again: every
// informer lists everything, so every reconciler reconciles every object.
func restartController(t *testing.T) {
	t.Helper()
	stopController()
	if err := startController(); err != nil {
		t.Fatal(err)
	}
}

// steadyRoutes makes n Routes with one tag each: half with a DomainInternal
// load balancer, half with an IP.
func steadyRoutes(t *testing.T, ns, gw string, n int) {
	t.Helper()
	for i := range n {
		name := fmt.Sprintf("r%d", i)
		route(t, ns, name, "tag")
		if i%2 == 0 {
			setLoadBalancer(t, ns, name, internalEntry(fmt.Sprintf(gwDomain, gw)))
		} else {
			setLoadBalancer(t, ns, name, ipEntry(lbIPv4))
		}
	}
}

func waitAllShaped(t *testing.T, ns, gw, ip string, n int, mode netcfg.RouteAddressMode) {
	t.Helper()
	for i := range n {
		name := fmt.Sprintf("r%d", i)
		c := lbCases[2] // internal
		if i%2 == 1 {
			c = lbCases[0] // ip
		}
		for _, svc := range []string{name, "tag-" + name} {
			want := named(c.wantAt(mode, netcfg.RouteAddressFallbackEnabled, gw, ip), svc)
			if !mode.Managed() {
				if i%2 == 0 {
					want = shape{Type: corev1.ServiceTypeExternalName, ExternalName: fmt.Sprintf(gwDomain, gw)}
				} else {
					want = shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Endpoints: []string{lbIPv4}, Mirrored: 1}
				}
			}
			waitShape(t, ns, svc, want)
		}
	}
}

// TestSteadyStateWrites: after convergence, a forced resync of every
// reconciler (a controller restart) writes nothing to Services, Endpoints
// or EndpointSlices, in every mode: in ExternalName mode the route
// reconciler as the series leaves it (its first pull request) updates no
// unchanged placeholder. The canary's own writes in the same window show
// that the audit log sees writes at all.
func TestSteadyStateWrites(t *testing.T) {
	needLocal(t)
	const n = 10
	gw := namespace(t, "gw")
	const ip = "198.19.0.50"
	gatewayService(t, gw, "gateway", ip, 80)
	ns := namespace(t, "steady")

	for _, mode := range []netcfg.RouteAddressMode{netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpointsAndSlices, netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressModeExternalName} {
		switched := time.Now()
		setMode(t, mode, netcfg.RouteAddressFallbackEnabled)
		if mode == netcfg.RouteAddressModeEndpointSlices {
			steadyRoutes(t, ns, gw, n)
		}
		waitAllShaped(t, ns, gw, ip, n, mode)
		auditQuiet(t, switched, ns, 3*time.Second) // stragglers land before the window opens

		writes := resyncWrites(t, ns, mode, func() { restartController(t) })
		t.Logf("%-18s forced resync of %d Routes (%d Services): %d writes (%.2f per Route) %s",
			mode, n, 2*n, len(writes), float64(len(writes))/n, summarizeWrites(writes))
		if len(writes) != 0 {
			t.Errorf("%s: %d writes in steady state, want 0: %s", mode, len(writes), summarizeWrites(writes))
		}
	}
}

// resyncWrites runs restart, which leaves a controller started anew (every
// informer lists everything, so every reconciler reconciles every object),
// and returns the writes to Services, Endpoints and EndpointSlices in ns
// from then on, once a canary Route in a namespace of its own has
// converged and written (the new controller works: 0 writes from a crashed
// one would prove nothing) and 10 s have passed.
func resyncWrites(t *testing.T, ns string, mode netcfg.RouteAddressMode, restart func()) []cluster.AuditEvent {
	t.Helper()
	start := time.Now()
	restart()
	canaryNS := namespace(t, "canary")
	route(t, canaryNS, "canary")
	setLoadBalancer(t, canaryNS, "canary", ipEntry(lbIPv4))
	if mode.Managed() {
		waitShape(t, canaryNS, "canary", named(lbCases[0].wantAt(mode, netcfg.RouteAddressFallbackEnabled, "", ""), "canary"))
	} else {
		waitShape(t, canaryNS, "canary", shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Endpoints: []string{lbIPv4}, Mirrored: 1})
	}
	time.Sleep(10*time.Second - time.Since(start))
	if !alive() {
		t.Fatalf("%s: the controller is not running after the restart", mode)
	}
	// Any request is one too many, whether or not it took effect; a write
	// the route reconciler would make lands by now, however slowly.
	auditQuiet(t, start, ns, 2*time.Second)
	if len(auditWrites(t, start, canaryNS)) == 0 {
		// The positive control: the window and the audit log see the
		// canary's writes.
		t.Fatalf("%s: no write of the canary after the restart: the measurement sees nothing", mode)
	}
	return auditWrites(t, start, ns)
}

// TestRestartMidSwitch kills the controller right after the mode changes
// and checks that after a restart every name converges with no duplicate
// or leftover objects.
func TestRestartMidSwitch(t *testing.T) {
	needLocal(t)
	const n = 30
	gw := namespace(t, "gw")
	const ip = "198.19.0.60"
	gatewayService(t, gw, "gateway", ip, 80)
	ns := namespace(t, "restart")
	setMode(t, netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressFallbackEnabled)
	steadyRoutes(t, ns, gw, n)
	waitAllShaped(t, ns, gw, ip, n, netcfg.RouteAddressModeEndpoints)

	// progress counts the objects a switch to mode creates: our slices
	// (from Endpoints), our skip-mirror Endpoints (from EndpointSlices).
	progress := map[netcfg.RouteAddressMode]func() int{
		netcfg.RouteAddressModeEndpointSlices: func() int { return oursSlices(t, ns) },
		netcfg.RouteAddressModeEndpointsAndSlices: func() int {
			l, err := env.kube.CoreV1().Endpoints(ns).List(bg(), metav1.ListOptions{LabelSelector: discoveryv1.LabelSkipMirror + "=true"})
			if err != nil {
				t.Fatal(err)
			}
			return len(l.Items)
		},
	}
	for _, mode := range []netcfg.RouteAddressMode{netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpointsAndSlices} {
		// Writes limited to 20/s: the switch takes seconds, so the kill
		// lands mid-switch however late this test gets to run after seeing
		// it begin.
		stopController()
		if err := startController(cluster.Limits(20, 20)...); err != nil {
			t.Fatal(err)
		}
		count := progress[mode]
		before := count()
		setMode(t, mode, netcfg.RouteAddressFallbackEnabled)
		// Kill as soon as the switch has begun.
		start := time.Now()
		for count() == before && time.Since(start) < 10*time.Second {
			time.Sleep(2 * time.Millisecond)
		}
		killController()
		time.Sleep(100 * time.Millisecond)
		atKill := count()
		t.Logf("→ %s: killed %v after the switch with %d of %d objects it creates", mode, time.Since(start).Round(time.Millisecond), atKill, 2*n)
		if atKill == before || atKill == 2*n {
			t.Errorf("→ %s: the kill did not land mid-switch (%d before, %d at the kill, %d wanted)", mode, before, atKill, 2*n)
		}
		if err := startController(); err != nil {
			t.Fatal(err)
		}
		waitLeaderOf(t, "routeaddress")
		waitAllShaped(t, ns, gw, ip, n, mode)
	}
	// Nothing but what the shapes list: no stray slices of ours.
	if got := oursSlices(t, ns); got != 2*n {
		t.Errorf("%d EndpointSlices of ours, want %d", got, 2*n)
	}
}

// TestBackToExternalName: after our modes, switching back leaves the same
// objects upstream alone gives a fresh Route.
func TestBackToExternalName(t *testing.T) {
	gw := namespace(t, "gw")
	const ip = "198.19.0.70"
	gatewayService(t, gw, "gateway", ip, 80)
	ns := namespace(t, "back")
	lbs := map[string][]netv1alpha1.LoadBalancerIngressStatus{
		"internal": {internalEntry(fmt.Sprintf(gwDomain, gw))},
		"ip":       {ipEntry(lbIPv4)},
	}
	setMode(t, netcfg.RouteAddressModeEndpointsAndSlices, netcfg.RouteAddressFallbackEnabled)
	for name, lb := range lbs {
		route(t, ns, "old-"+name, "tag")
		setLoadBalancer(t, ns, "old-"+name, lb...)
		waitShape(t, ns, "old-"+name, named(lbCases[map[string]int{"internal": 2, "ip": 0}[name]].wantAt(netcfg.RouteAddressModeEndpointsAndSlices, netcfg.RouteAddressFallbackEnabled, gw, ip), "old-"+name))
	}
	setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	for name, lb := range lbs {
		route(t, ns, "new-"+name, "tag")
		setLoadBalancer(t, ns, "new-"+name, lb...)
	}
	for name := range lbs {
		for _, pair := range [][2]string{{"old-" + name, "new-" + name}, {"tag-old-" + name, "tag-new-" + name}} {
			eventually(t, pair[0]+" like "+pair[1], func() error {
				a, err := observe(ns, pair[0])
				if err != nil {
					return err
				}
				b, err := observe(ns, pair[1])
				if err != nil {
					return err
				}
				if d := cmp.Diff(b, a); d != "" {
					return fmt.Errorf("(-fresh +switched back) %s", d)
				}
				sa, _ := env.kube.CoreV1().Services(ns).Get(bg(), pair[0], metav1.GetOptions{})
				sb, _ := env.kube.CoreV1().Services(ns).Get(bg(), pair[1], metav1.GetOptions{})
				if sa.Spec.Type != sb.Spec.Type || sa.Spec.ExternalName != sb.Spec.ExternalName ||
					!cmp.Equal(sa.Spec.Ports, sb.Spec.Ports) || sa.Spec.SessionAffinity != sb.Spec.SessionAffinity {
					return fmt.Errorf("Service specs differ: %+v vs %+v", sa.Spec, sb.Spec)
				}
				return nil
			})
		}
	}
}

// TestDomainMapping: a DomainMapping's KIngress sends traffic to the
// Route's Service, which must then be a headless Service with endpoints,
// not ExternalName (which Contour, Envoy Gateway and others refuse).
func TestDomainMapping(t *testing.T) {
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackDisabled)
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", "198.19.0.80", 80)
	ns := namespace(t, "dm")
	route(t, ns, "hello")
	setLoadBalancer(t, ns, "hello", internalEntry(fmt.Sprintf(gwDomain, gw)))
	waitDNS(t, fqdn(ns, "hello"), "A/AAAA 198.19.0.80")

	domain := ns + ".example.org"
	if _, err := env.net.NetworkingV1alpha1().ClusterDomainClaims().Create(bg(), &netv1alpha1.ClusterDomainClaim{
		ObjectMeta: metav1.ObjectMeta{Name: domain},
		Spec:       netv1alpha1.ClusterDomainClaimSpec{Namespace: ns},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.net.NetworkingV1alpha1().ClusterDomainClaims().Delete(bg(), domain, metav1.DeleteOptions{})
	})
	if _, err := env.serving.ServingV1beta1().DomainMappings(ns).Create(bg(), &v1beta1.DomainMapping{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: domain},
		Spec:       v1beta1.DomainMappingSpec{Ref: duckRef(ns, "hello")},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "DomainMapping KIngress with the Route's Service as backend", func() error {
		ing, err := env.net.NetworkingV1alpha1().Ingresses(ns).Get(bg(), domain, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, r := range ing.Spec.Rules {
			for _, p := range r.HTTP.Paths {
				for _, s := range p.Splits {
					if s.ServiceName == "hello" && s.ServiceNamespace == ns && s.ServicePort.IntValue() == 80 {
						return nil
					}
				}
			}
		}
		return fmt.Errorf("backends: %+v", ing.Spec.Rules)
	})
	s, err := observe(ns, "hello")
	if err != nil {
		t.Fatal(err)
	}
	if s.Type == corev1.ServiceTypeExternalName || !s.Headless || len(s.Slices) != 1 || !strings.Contains(s.Slices[0], "198.19.0.80") {
		t.Errorf("the DomainMapping's backend Service is %+v, want headless with an EndpointSlice to 198.19.0.80", s)
	}
}

func duckRef(ns, name string) duckv1.KReference {
	return duckv1.KReference{APIVersion: "serving.knative.dev/v1", Kind: "Route", Namespace: ns, Name: name}
}

// TestTrafficChangeDuringSwitch: the route reconciler and routeaddress act
// on the same Routes at once. While 50 Routes switch to EndpointSlices,
// each gains a traffic tag (the route reconciler updates its KIngress and
// its status; routeaddress addresses the new name). At the end every
// Route is Ready with the new tag in its status, and each of its three
// names is headless with our slice: neither undid the other.
func TestTrafficChangeDuringSwitch(t *testing.T) {
	const n = 50
	setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	gw := namespace(t, "gw")
	const ip = "198.19.0.74"
	gatewayService(t, gw, "gateway", ip, 80)
	ns := namespace(t, "traffic")
	gatewayRoutes(t, ns, gw, n)
	external := shape{Type: corev1.ServiceTypeExternalName, ExternalName: fmt.Sprintf(gwDomain, gw)}
	for i := range n {
		waitShape(t, ns, fmt.Sprintf("tag-r%d", i), external)
	}

	generation := func(name string) (int64, error) {
		ing, err := env.net.NetworkingV1alpha1().Ingresses(ns).Get(bg(), name, metav1.GetOptions{})
		if err != nil {
			return 0, err
		}
		return ing.Generation, nil
	}
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	for i := range n {
		name := fmt.Sprintf("r%d", i)
		before, err := generation(name)
		if err != nil {
			t.Fatal(err)
		}
		setTags(t, ns, name, "tag", "new")
		// The ingress programs the new host once the route reconciler has
		// added it to the KIngress.
		eventually(t, "KIngress "+name+" with the new host", func() error {
			if g, err := generation(name); err != nil || g == before {
				return fmt.Errorf("generation %d (%v)", g, err)
			}
			return nil
		})
		setLoadBalancer(t, ns, name, internalEntry(fmt.Sprintf(gwDomain, gw)))
	}
	headless := shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Slices: []string{"%s-ipv4 IPv4 " + ip}}
	for i := range n {
		name := fmt.Sprintf("r%d", i)
		for _, svc := range []string{name, "tag-" + name, "new-" + name} {
			waitShape(t, ns, svc, named(headless, svc))
		}
		eventually(t, "Route "+name+" Ready with the tag new", func() error {
			r, err := env.serving.ServingV1().Routes(ns).Get(bg(), name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if !r.IsReady() {
				return fmt.Errorf("not Ready: %+v", r.Status.Conditions)
			}
			for _, tt := range r.Status.Traffic {
				if tt.Tag == "new" {
					return nil
				}
			}
			return fmt.Errorf("status traffic %+v has no tag new", r.Status.Traffic)
		})
	}
	waitDNS(t, fqdn(ns, "new-r0"), "A/AAAA "+ip)
	t.Logf("%d Routes: a tag added to each during the switch; every Route Ready with it, its %d names headless with slices", n, 3*n)
}
