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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

// clearLoadBalancer plays an ingress that re-creates the KIngress status
// from scratch: the load balancers go and the KIngress is not ready.
func clearLoadBalancer(t *testing.T, ns, name string) {
	t.Helper()
	eventually(t, "KIngress "+ns+"/"+name+" status cleared", func() error {
		ing, err := env.net.NetworkingV1alpha1().Ingresses(ns).Get(bg(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		ing.Status.PublicLoadBalancer, ing.Status.PrivateLoadBalancer = nil, nil
		ing.Status.MarkLoadBalancerNotReady()
		_, err = env.net.NetworkingV1alpha1().Ingresses(ns).UpdateStatus(bg(), ing, metav1.UpdateOptions{})
		return err
	})
}

// TestLoadBalancerGone (issue 12, fault 1): while the KIngress has no load
// balancer status, every managed mode keeps the Route's last addresses, as
// upstream keeps its Service; a prober resolving both names every 50 ms
// must see no failed lookup, and the Route gets one LoadBalancerNotReady
// Warning per name.
func TestLoadBalancerGone(t *testing.T) {
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", "198.19.0.40", 80)
	for _, mode := range []netcfg.RouteAddressMode{netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressModeEndpointsAndSlices} {
		t.Run(string(mode), func(t *testing.T) {
			setMode(t, mode, netcfg.RouteAddressFallbackEnabled)
			ns := namespace(t, "lbgone")
			route(t, ns, "hello", "canary")
			setLoadBalancer(t, ns, "hello", internalEntry(fmt.Sprintf(gwDomain, gw)))
			names := []string{fqdn(ns, "hello"), fqdn(ns, "canary-hello")}
			for _, n := range names {
				waitDNS(t, n, "A/AAAA 198.19.0.40")
			}

			p := probe([]string{"198.19.0.40"}, names...)
			clearLoadBalancer(t, ns, "hello")
			time.Sleep(6 * time.Second)
			probes, fails := p.take()
			setLoadBalancer(t, ns, "hello", internalEntry(fmt.Sprintf(gwDomain, gw)))
			time.Sleep(time.Second)
			after, failsAfter := p.take()
			p.close()
			t.Logf("%s: load balancer gone for 6 s: %d lookups, %d failed; after it came back: %d lookups, %d failed",
				mode, probes, len(fails), after, len(failsAfter))
			if probes == 0 {
				t.Fatal("the prober made no lookup")
			}
			if len(fails)+len(failsAfter) > 0 {
				t.Errorf("%d failed lookups, first: %+v", len(fails)+len(failsAfter), append(fails, failsAfter...)[0])
			}
			for _, n := range names {
				waitDNS(t, n, "A/AAAA 198.19.0.40")
			}
			evs, err := env.kube.CoreV1().Events(ns).List(bg(), metav1.ListOptions{FieldSelector: "involvedObject.name=hello,reason=LoadBalancerNotReady"})
			if err != nil {
				t.Fatal(err)
			}
			if len(evs.Items) != 2 {
				t.Errorf("%d LoadBalancerNotReady events, want one per name: %v", len(evs.Items), evs.Items)
			}
			for _, e := range evs.Items {
				if e.Type != corev1.EventTypeWarning || e.Count != 1 {
					t.Errorf("event %s %q recorded %d times, want a Warning once", e.Type, e.Message, e.Count)
				}
			}
		})
	}
}

// TestDomainInternalForms (issue 12, faults 2 and 3): a DomainInternal in
// upper case and in the short in-cluster form resolves to the gateway's
// ClusterIP; one naming a missing Service in upper case falls back to a
// lower-case ExternalName, which the apiserver takes (it refuses upper
// case), replacing the headless Service without a gap in between.
func TestDomainInternalForms(t *testing.T) {
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", "198.19.0.41", 80)
	ns := namespace(t, "forms")
	route(t, ns, "hello")
	name := fqdn(ns, "hello")
	for _, d := range []string{
		strings.ToUpper(fmt.Sprintf(gwDomain, gw)),
		"Gateway." + gw + ".svc.",
		"gateway." + gw,
	} {
		// From a different state each time, so that the wait below sees
		// this form's result and not the last one's.
		setLoadBalancer(t, ns, "hello", ipEntry(lbIPv4))
		waitDNS(t, name, "A/AAAA "+lbIPv4)
		setLoadBalancer(t, ns, "hello", internalEntry(d))
		waitShape(t, ns, "hello", shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Slices: []string{"hello-ipv4 IPv4 198.19.0.41"}})
		waitDNS(t, name, "A/AAAA 198.19.0.41")
		t.Logf("DomainInternal %q → A 198.19.0.41", d)
	}

	missing := "Missing." + strings.ToUpper(gw) + ".svc.cluster.local"
	setLoadBalancer(t, ns, "hello", internalEntry(missing))
	waitShape(t, ns, "hello", shape{Type: corev1.ServiceTypeExternalName, ExternalName: strings.ToLower(missing)})
	t.Logf("DomainInternal %q (no such Service) → ExternalName %q", missing, strings.ToLower(missing))
}

// alive reports whether the controller process runs.
func alive() bool {
	return env.ctrl != nil && env.ctrl.cmd.Process != nil && syscall.Kill(env.ctrl.cmd.Process.Pid, 0) == nil
}

// TestBadKey: a mistyped route-address-mode is admitted (no webhook
// validates it here). Written to a running controller on a switched
// cluster, it leaves the last good configuration in force: no write to any
// Service, Endpoints or EndpointSlice, and the Route's names still answer
// their address (serving's configuration store keeps the last good
// config-network). A controller started with it exits before it reconciles
// anything, as it does for any config-network value its webhook refuses
// (in a cluster, a crash loop): still no write, the names still answer,
// and its log names the key, the value and the allowed values. Fixed, the
// next start writes nothing either: the names have their mode's shape.
func TestBadKey(t *testing.T) {
	needLocal(t)
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", "198.19.0.42", 80)
	ns := namespace(t, "badkey")
	route(t, ns, "hello", "canary")
	setLoadBalancer(t, ns, "hello", internalEntry(fmt.Sprintf(gwDomain, gw)))
	headless := shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Slices: []string{"%s-ipv4 IPv4 198.19.0.42"}}
	waitShape(t, ns, "hello", named(headless, "hello"))
	waitShape(t, ns, "canary-hello", named(headless, "canary-hello"))
	t.Cleanup(func() { setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled) })

	typo := "endpointslice"
	bad := fmt.Sprintf(`route-address-mode with value: %q in config-network ConfigMap is not supported, allowed values are externalname, endpoints, endpointslices, endpointsandslices`, typo)
	// unchanged checks that nothing was written to the Route's objects
	// since then and that both names keep their shape and answer.
	unchanged := func(what string, since time.Time) {
		t.Helper()
		if ws := auditWrites(t, since, ns); len(ws) != 0 {
			t.Errorf("%s: writes to the Route's objects: %s", what, summarizeWrites(ws))
		}
		for _, n := range []string{"hello", "canary-hello"} {
			if got, err := observe(ns, n); err != nil || fmt.Sprint(got) != fmt.Sprint(named(headless, n)) {
				t.Errorf("%s: %s is %+v (%v), want %+v", what, n, got, err, named(headless, n))
			}
			waitDNS(t, fqdn(ns, n), "A/AAAA 198.19.0.42")
		}
		t.Logf("%s: 0 writes in %s, both names answer A 198.19.0.42", what, ns)
	}

	auditQuiet(t, time.Now().Add(-time.Minute), ns, 3*time.Second)
	since := time.Now()
	patchConfigNetwork(t, map[string]string{netcfg.RouteAddressModeKey: typo})
	// Every Route is resynced meanwhile by routeaddress and the route
	// reconciler: their store keeps the last good configuration.
	time.Sleep(5 * time.Second)
	unchanged("typo written to a running controller", since)

	// Restarted with the typo: it exits, twice, as a crash loop would.
	logFile := filepath.Join(env.local.Dir, "controller.log")
	for i := range 2 {
		stopController()
		from := fileSize(logFile)
		if err := startController(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for alive() && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if alive() {
			t.Fatalf("start %d with the typo: the controller still runs after 60 s", i+1)
		}
		env.ctrl = nil
		line := logLineWith(t, logFile, from, "Failed to construct network config")
		if !strings.Contains(line, bad) {
			t.Errorf("start %d with the typo: its log says %q, want it to say %q", i+1, line, bad)
		}
		t.Logf("start %d with the typo: exited: %s", i+1, line)
	}
	unchanged("the controller started twice with the typo", since)

	since = time.Now()
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	if err := startController(); err != nil {
		t.Fatal(err)
	}
	waitLeaderOf(t, "routeaddress")
	time.Sleep(5 * time.Second)
	unchanged("the value fixed and the controller started", since)
}

// TestWebhookRefusesBadKey (issue 13): with the webhook binary running as
// serving's webhook, the apiserver refuses a mistyped route-address-mode
// when it is written, with a message that names the key, the value and the
// allowed values; a good value is admitted.
func TestWebhookRefusesBadKey(t *testing.T) {
	needLocal(t)
	if os.Geteuid() != 0 {
		skipOrFail(t, "the webhook's address needs root")
	}
	w, err := env.local.StartWebhook(bg(), env.webhook)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	patch := func(mode string) error {
		b, _ := json.Marshal(map[string]any{"data": map[string]string{netcfg.RouteAddressModeKey: mode}})
		_, err := env.kube.CoreV1().ConfigMaps(cluster.SystemNamespace).Patch(bg(), "config-network", types.MergePatchType, b, metav1.PatchOptions{})
		return err
	}
	err = patch("endpointslice")
	want := `route-address-mode with value: "endpointslice" in config-network ConfigMap is not supported, allowed values are externalname, endpoints, endpointslices, endpointsandslices`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("patching route-address-mode=endpointslice: %v; want it refused with %q", err, want)
	}
	t.Logf("kubectl patch ... route-address-mode=endpointslice: %v", err)
	if err := patch(string(netcfg.RouteAddressModeEndpointSlices)); err != nil {
		t.Errorf("a good value was refused: %v", err)
	}
	cm, err := env.kube.CoreV1().ConfigMaps(cluster.SystemNamespace).Get(bg(), "config-network", metav1.GetOptions{})
	if err != nil || cm.Data[netcfg.RouteAddressModeKey] != string(netcfg.RouteAddressModeEndpointSlices) {
		t.Errorf("config-network %s = %q (%v), want %s", netcfg.RouteAddressModeKey, cm.Data[netcfg.RouteAddressModeKey], err, netcfg.RouteAddressModeEndpointSlices)
	}
}

// fileSize is the size of the file at path, 0 when there is none.
func fileSize(path string) int64 {
	if fi, err := os.Stat(path); err == nil {
		return fi.Size()
	}
	return 0
}

// logLineWith returns the first line of the file at path, from offset from
// on, that contains want.
func logLineWith(t *testing.T, path string, from int64, want string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b[min(from, int64(len(b))):]), "\n") {
		if strings.Contains(line, want) {
			return line
		}
	}
	t.Fatalf("%s has no line with %q after byte %d", path, want, from)
	return ""
}

// waitLeaderOf waits until a lease of the reconciler named reconciler has
// been acquired since the running controller started (a leader reconciles
// every Route of its bucket when it takes it). A controller that was
// killed holds its leases until they expire: its successor waits up to a
// lease duration before it may take one, and the wait allows for that.
// Only a lease acquired after the start counts (its time is the
// controller's clock, this host's, to the microsecond): one the killed
// controller took a moment before is still its.
func waitLeaderOf(t *testing.T, reconciler string) {
	t.Helper()
	started := env.ctrl.started
	lease, err := time.ParseDuration(cluster.LeaderElection["lease-duration"])
	if err != nil {
		t.Fatal(err)
	}
	eventuallyWithin(t, lease+timeout, "a lease of the "+reconciler+" reconciler acquired", func() error {
		l, err := env.kube.CoordinationV1().Leases(cluster.SystemNamespace).List(bg(), metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, lease := range l.Items {
			if strings.Contains(lease.Name, "."+reconciler+".") && lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "" &&
				lease.Spec.AcquireTime != nil && !lease.Spec.AcquireTime.Time.Before(started) {
				return nil
			}
		}
		return fmt.Errorf("none among %d leases", len(l.Items))
	})
}
