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
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/preview"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
	"knative.dev/route-address/test/cluster"
)

// swapToStock replaces the controller with serving's stock one, as putting
// serving's image back does; the returned func puts route-address back.
func swapToStock(t *testing.T) func() {
	t.Helper()
	stopController()
	cmd, err := cluster.StartController(env.local, env.stock)
	if err != nil {
		t.Fatal("starting the stock controller:", err)
	}
	return func() {
		cluster.Stop(cmd)
		if err := startController(); err != nil {
			t.Fatal("starting route-address again:", err)
		}
	}
}

// ourObjects lists what route-address wrote in ns that is still there: our
// EndpointSlices and Endpoints that carry one of our labels.
func ourObjects(t *testing.T, ns string) []string {
	t.Helper()
	var out []string
	sl, err := env.kube.DiscoveryV1().EndpointSlices(ns).List(bg(), metav1.ListOptions{LabelSelector: discoveryv1.LabelManagedBy + "=" + names.ManagedBy})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sl.Items {
		var addrs []string
		for _, e := range s.Endpoints {
			addrs = append(addrs, e.Addresses...)
		}
		out = append(out, fmt.Sprintf("EndpointSlice %s [%s]", s.Name, strings.Join(addrs, ",")))
	}
	eps, err := env.kube.CoreV1().Endpoints(ns).List(bg(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eps.Items {
		var labels []string
		for _, k := range []string{names.MarkLabel, discoveryv1.LabelSkipMirror} {
			if e.Labels[k] != "" {
				labels = append(labels, k)
			}
		}
		if len(labels) > 0 {
			out = append(out, fmt.Sprintf("Endpoints %s (labels %s)", e.Name, strings.Join(labels, ", ")))
		}
	}
	sort.Strings(out)
	return out
}

// balancer is the load balancer a test Route gets and the address its
// name answers.
type balancer struct {
	route string
	entry netv1alpha1.LoadBalancerIngressStatus
	ip    string
}

// twoBalancers makes a gateway Service at gatewayIP and returns the load
// balancers of two Routes: "internal" (DomainInternal, that gateway) and
// "byip" (the IP byIP).
func twoBalancers(t *testing.T, gatewayIP, byIP string) []balancer {
	t.Helper()
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", gatewayIP, 80)
	return []balancer{
		{"internal", internalEntry(fmt.Sprintf(gwDomain, gw)), gatewayIP},
		{"byip", ipEntry(byIP), byIP},
	}
}

// TestRollback (issue 14): going back to serving's stock controller.
// Documented: switch to ExternalName, wait until `kubectl route-address
// status` lists nothing left behind, then swap the image: nothing of ours
// remains and no lookup fails. Image swapped while a managed mode is set:
// what remains, and for how long, per load balancer; the names keep
// answering upstream's addresses.
func TestRollback(t *testing.T) {
	needLocal(t)
	lbs := twoBalancers(t, "198.19.0.110", "198.19.0.111")
	for _, mode := range []netcfg.RouteAddressMode{netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressModeEndpointsAndSlices} {
		for _, documented := range []bool{true, false} {
			how := map[bool]string{true: "documented", false: "image swapped"}[documented]
			t.Run(string(mode)+"/"+how, func(t *testing.T) {
				setMode(t, mode, netcfg.RouteAddressFallbackEnabled)
				ns := namespace(t, "rollback")
				probes := map[string]*prober{}
				for _, l := range lbs {
					route(t, ns, l.route)
					setLoadBalancer(t, ns, l.route, l.entry)
					waitDNS(t, fqdn(ns, l.route), "A/AAAA "+l.ip)
				}
				if len(ourObjects(t, ns)) == 0 {
					t.Fatal("nothing of ours before the rollback")
				}
				if documented {
					setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
					c := preview.Clients{Kube: env.kube, Serving: env.serving, Net: env.net}
					eventually(t, "status: nothing left behind", func() error {
						st, err := c.Status(bg(), preview.Scope{Namespace: ns, SystemNamespace: cluster.SystemNamespace})
						if err != nil {
							return err
						}
						if len(st.LeftBehind) > 0 {
							return fmt.Errorf("left behind: %v", st.LeftBehind)
						}
						return nil
					})
				}
				for _, l := range lbs {
					probes[l.route] = probe([]string{l.ip}, fqdn(ns, l.route))
				}
				swapped := time.Now()
				restore := swapToStock(t)
				defer restore()

				// What remains, polled for 8 s under the stock controller:
				// each change with its time after the swap.
				var left []string
				var timeline []string
				for time.Since(swapped) < 8*time.Second {
					now := ourObjects(t, ns)
					if timeline == nil || fmt.Sprint(now) != fmt.Sprint(left) {
						timeline = append(timeline, fmt.Sprintf("%v: %v", time.Since(swapped).Round(10*time.Millisecond), now))
					}
					left = now
					time.Sleep(100 * time.Millisecond)
				}
				var writes []string
				for _, w := range auditWrites(t, swapped, ns) {
					writes = append(writes, fmt.Sprintf("%v %s %s/%s (%d)", w.StageTimestamp.Sub(swapped).Round(10*time.Millisecond), w.Verb, w.ObjectRef.Resource, w.ObjectRef.Name, w.ResponseStatus.Code))
				}
				t.Logf("%s, %s: writes after the swap: %s", mode, how, strings.Join(writes, "; "))
				for _, l := range lbs {
					n, fails := probes[l.route].take()
					probes[l.route].close()
					t.Logf("%s, %s: %s: %d lookups under the stock controller, %d failed", mode, how, l.route, n, len(fails))
					if n == 0 {
						t.Error("the prober made no lookup")
					}
					// Upstream recreates a headless Service it makes
					// ExternalName (delete, then create): the gap of a
					// switch to ExternalName, upstream's own.
					recreates := !documented && l.route == "internal"
					if len(fails) > 0 && !recreates {
						t.Errorf("%s: %d failed lookups, first: %+v", l.route, len(fails), fails[0])
					}
				}
				t.Logf("%s, %s: ours after the swap: %s", mode, how, strings.Join(timeline, "; "))
				if documented && len(left) > 0 {
					t.Errorf("the documented rollback left %v", left)
				}
				if documented {
					return
				}
				// Garbage collection removes them with the recreated
				// Service: waited for, however slow the machine.
				eventually(t, "nothing of ours for the DomainInternal name, which upstream makes ExternalName", func() error {
					for _, o := range ourObjects(t, ns) {
						if strings.Contains(o, "internal") {
							return fmt.Errorf("left: %s", o)
						}
					}
					return nil
				})
				// The IP load balancer changes under the stock controller:
				// what the name answers with our objects left behind.
				setLoadBalancer(t, ns, "byip", ipEntry("198.19.0.112"))
				time.Sleep(3 * time.Second)
				a, err := env.dns.Lookup(fqdn(ns, "byip"))
				t.Logf("%s, %s: after the IP changed to 198.19.0.112 under the stock controller, byip answers %v (err %v); ours: %v", mode, how, a, err, ourObjects(t, ns))

				// `kubectl route-address cleanup` makes it nothing.
				p := probe([]string{"198.19.0.112"}, fqdn(ns, "byip"))
				defer p.close()
				c := preview.Clients{Kube: env.kube, Serving: env.serving, Net: env.net}
				rep, err := c.Cleanup(bg(), preview.Scope{Namespace: ns, SystemNamespace: cluster.SystemNamespace}, preview.DryRunNone, 10*time.Second)
				if err != nil {
					t.Fatal("cleanup:", err)
				}
				t.Logf("%s, %s: cleanup: %v; kept: %v", mode, how, rep.Done, rep.Kept)
				waitDNS(t, fqdn(ns, "byip"), "A/AAAA 198.19.0.112")
				if left := ourObjects(t, ns); len(left) > 0 {
					t.Errorf("after cleanup: %v", left)
				}
				time.Sleep(time.Second)
				// Answers before the mirrored slice's address is in DNS
				// are the stale one, not failures to resolve.
				n, fails := p.take()
				for _, f := range fails {
					if !strings.Contains(f.err, "198.19.0.111") {
						t.Errorf("during cleanup: %+v", f)
					}
				}
				t.Logf("%s, %s: %d lookups during and after cleanup, %d answered the stale address", mode, how, n, len(fails))
			})
		}
	}
}

// TestServingReapplied: serving's release applied again over route-address
// while a managed mode is set (serving's stock controller back, the key
// still set), then route-address installed again, as docs/operating.md "Re-apply
// or upgrade Knative Serving" describes. Under the stock controller a
// DomainInternal name is recreated as ExternalName (upstream's delete and
// create: its own gap, counted and logged) and an IP name keeps answering;
// once route-address is back, every name has its headless Service and our
// objects again, and no lookup fails on the way.
func TestServingReapplied(t *testing.T) {
	needLocal(t)
	setMode(t, netcfg.RouteAddressModeEndpointsAndSlices, netcfg.RouteAddressFallbackEnabled)
	lbs := twoBalancers(t, "198.19.0.120", "198.19.0.121")
	ns := namespace(t, "reapply")
	switched := map[string]shape{}
	for _, l := range lbs {
		route(t, ns, l.route)
		setLoadBalancer(t, ns, l.route, l.entry)
		waitDNS(t, fqdn(ns, l.route), "A/AAAA "+l.ip)
		eventually(t, l.route+" switched", func() error {
			s, err := observe(ns, l.route)
			if err != nil {
				return err
			}
			if !s.Headless || len(s.Slices) == 0 || len(s.Endpoints) == 0 {
				return fmt.Errorf("got %+v", s)
			}
			switched[l.route] = s
			return nil
		})
	}

	// serving's release applied again: the stock controller, the key set.
	probes := map[string]*prober{}
	for _, l := range lbs {
		probes[l.route] = probe([]string{l.ip}, fqdn(ns, l.route))
	}
	restore := swapToStock(t)
	restored := false
	defer func() {
		if !restored {
			restore()
		}
	}()
	eventually(t, "the stock controller made internal ExternalName", func() error {
		s, err := observe(ns, "internal")
		if err != nil {
			return err
		}
		if s.Type != corev1.ServiceTypeExternalName {
			return fmt.Errorf("got %+v", s)
		}
		return nil
	})
	time.Sleep(2 * time.Second)
	for _, l := range lbs {
		n, fails := probes[l.route].take()
		probes[l.route].close()
		t.Logf("stock controller, key set: %s: %d lookups, %d failed (%v)", l.route, n, len(fails), gapOf(fails))
		if n == 0 {
			t.Error("the prober made no lookup")
		}
		// Only upstream's delete and create of the DomainInternal name.
		if len(fails) > 0 && l.route != "internal" {
			t.Errorf("%s under the stock controller: %d failed lookups, first: %+v", l.route, len(fails), fails[0])
		}
	}

	// route-address installed again.
	for _, l := range lbs {
		probes[l.route] = probe([]string{l.ip}, fqdn(ns, l.route))
	}
	back := time.Now()
	restore()
	restored = true
	for _, l := range lbs {
		waitShape(t, ns, l.route, switched[l.route])
	}
	time.Sleep(time.Second)
	t.Logf("route-address again: every name as it was switched %v after its start; writes: %s",
		time.Since(back).Round(10*time.Millisecond), summarizeWrites(auditWrites(t, back, ns)))
	for _, l := range lbs {
		n, fails := probes[l.route].take()
		probes[l.route].close()
		t.Logf("route-address again: %s: %d lookups, %d failed", l.route, n, len(fails))
		if n == 0 {
			t.Error("the prober made no lookup")
		}
		for _, f := range fails {
			t.Errorf("%s with route-address back: %+v", l.route, f)
		}
	}
}
