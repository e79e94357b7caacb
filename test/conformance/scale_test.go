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
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

// hostIPs are n addresses of 198.18.0.0/15 (what a host-network ingress
// reports: one per node), in order.
func hostIPs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("198.18.%d.%d", 100+i/250, i%250+1)
	}
	return out
}

func entriesOf(ips []string) []netv1alpha1.LoadBalancerIngressStatus {
	out := make([]netv1alpha1.LoadBalancerIngressStatus, len(ips))
	for i, ip := range ips {
		out[i] = ipEntry(ip)
	}
	return out
}

// ourSlices returns our EndpointSlices of the Service name: name → addresses.
func ourSlices(t *testing.T, ns, name string) map[string][]string {
	t.Helper()
	l, err := env.kube.DiscoveryV1().EndpointSlices(ns).List(bg(), metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + name})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, s := range l.Items {
		if s.Labels[discoveryv1.LabelManagedBy] != "routeaddress-controller.knative.dev" {
			continue
		}
		out[s.Name] = []string{}
		for _, e := range s.Endpoints {
			out[s.Name] = append(out[s.Name], e.Addresses...)
		}
	}
	return out
}

// waitAnswers waits until name answers with exactly ips (in any order).
func waitAnswers(t *testing.T, name string, ips []string) {
	t.Helper()
	want := slices.Clone(ips)
	slices.Sort(want)
	eventually(t, fmt.Sprintf("DNS %s → %d addresses", name, len(ips)), func() error {
		a, err := env.dns.Lookup(name)
		if err != nil {
			return err
		}
		if !slices.Equal(a.Addresses, want) {
			return fmt.Errorf("%d addresses (CNAME %q), want %d", len(a.Addresses), a.CNAME, len(want))
		}
		return nil
	})
}

// TestLargeLoadBalancer gives a Route a load balancer of 2 500 IP
// entries (an ingress on the host network of 2 500 nodes): every address
// answers in DNS from slices of at most 100, and growing or shrinking it
// by one address writes one slice.
func TestLargeLoadBalancer(t *testing.T) {
	if env.local == nil {
		skipOrFail(t, "needs the local control plane's audit log")
	}
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	ns := namespace(t, "large")
	route(t, ns, "big")
	ips := hostIPs(2501)
	setLoadBalancer(t, ns, "big", entriesOf(ips[:2500])...)
	waitAnswers(t, fqdn(ns, "big"), ips[:2500])
	got := ourSlices(t, ns, "big")
	for name, addrs := range got {
		if len(addrs) > 100 {
			t.Errorf("%s holds %d addresses, want at most 100", name, len(addrs))
		}
	}
	if len(got) != 25 {
		t.Errorf("%d slices for 2 500 addresses, want 25", len(got))
	}
	t.Logf("2 500 addresses: %d slices, every address answers", len(got))

	for _, step := range []struct {
		name string
		ips  []string
	}{
		{"one address more", ips},
		{"one address fewer", append(slices.Clone(ips[:1000]), ips[1001:]...)},
		{"back to 2 500", ips[:2500]},
	} {
		auditQuiet(t, time.Now().Add(-time.Minute), ns, 2*time.Second)
		since := time.Now()
		setLoadBalancer(t, ns, "big", entriesOf(step.ips)...)
		waitAnswers(t, fqdn(ns, "big"), step.ips)
		auditQuiet(t, since, ns, 2*time.Second)
		ws, _ := cluster.Took(auditWrites(t, since, ns))
		t.Logf("%s: %d writes: %s", step.name, len(ws), summarizeWrites(ws))
		if len(ws) > 2 {
			t.Errorf("%s: %d writes, want at most 2 (one slice each way)", step.name, len(ws))
		}
		for _, w := range ws {
			if w.ObjectRef.Resource != "endpointslices" {
				t.Errorf("%s: wrote %s %s", step.name, w.ObjectRef.Resource, w.ObjectRef.Name)
			}
		}
	}
}

// TestLargeLoadBalancerEndpoints is the same load balancer in the modes
// that write Endpoints: the Endpoints hold the first 1 000 addresses,
// annotated over capacity, as kube-controller-manager's endpoints
// controller does; kube-controller-manager mirrors those 1 000, so in
// endpoints mode the name answers with them, and in endpointsandslices
// with all 2 500 from our slices.
func TestLargeLoadBalancerEndpoints(t *testing.T) {
	ips := hostIPs(2500)
	for _, tc := range []struct {
		mode    netcfg.RouteAddressMode
		answers []string
	}{{netcfg.RouteAddressModeEndpoints, ips[:1000]}, {netcfg.RouteAddressModeEndpointsAndSlices, ips}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			setMode(t, tc.mode, netcfg.RouteAddressFallbackEnabled)
			ns := namespace(t, "large")
			route(t, ns, "big")
			setLoadBalancer(t, ns, "big", entriesOf(ips)...)
			waitAnswers(t, fqdn(ns, "big"), tc.answers)
			ep, err := env.kube.CoreV1().Endpoints(ns).Get(bg(), "big", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(ep.Subsets[0].Addresses); n != 1000 || ep.Annotations[corev1.EndpointsOverCapacity] != "truncated" {
				t.Errorf("Endpoints hold %d addresses, annotated %q; want 1000, truncated", n, ep.Annotations[corev1.EndpointsOverCapacity])
			}
			ev := waitEvent(t, ns, "EndpointsOverCapacity")
			t.Logf("Warning: %s", ev)
			if !strings.Contains(ev, "1000 of the load balancer's 2500 addresses") {
				t.Errorf("the Warning does not name the count and the limit: %s", ev)
			}
		})
	}
}

// waitEvent waits for a Warning of reason in ns and returns its message.
func waitEvent(t *testing.T, ns, reason string) string {
	t.Helper()
	var msg string
	eventually(t, "a Warning "+reason, func() error {
		l, err := env.kube.CoreV1().Events(ns).List(bg(), metav1.ListOptions{FieldSelector: "reason=" + reason})
		if err != nil {
			return err
		}
		if len(l.Items) == 0 {
			return fmt.Errorf("none")
		}
		msg = l.Items[0].Message
		return nil
	})
	return msg
}

// TestNamespaceDeleted deletes a namespace of 300 Routes in
// endpointslices mode: the namespace's deletion takes their Services away
// first, and the controller must not retry recreating them into a
// namespace the apiserver refuses to add to. It logs at most one line for
// the namespace and no error.
func TestNamespaceDeleted(t *testing.T) {
	if env.local == nil {
		skipOrFail(t, "needs the controller's log")
	}
	const n = 300
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	ns := namespace(t, "doomed")
	for i := range n {
		route(t, ns, fmt.Sprintf("r%d", i))
	}
	for i := range n {
		setLoadBalancer(t, ns, fmt.Sprintf("r%d", i), ipEntry(lbIPv4))
	}
	// 2 writes a Route at the controller's client limit, beside the route
	// reconciler's: tens of seconds, more on a slow machine.
	eventuallyWithin(t, 5*time.Minute, fmt.Sprintf("%d headless Services", n), func() error {
		l, err := env.kube.CoreV1().Services(ns).List(bg(), metav1.ListOptions{})
		if err != nil {
			return err
		}
		headless := 0
		for _, s := range l.Items {
			if s.Spec.ClusterIP == corev1.ClusterIPNone {
				headless++
			}
		}
		if headless != n {
			return fmt.Errorf("%d", headless)
		}
		return nil
	})

	logPath := filepath.Join(env.local.Dir, "controller.log")
	before, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.kube.CoreV1().Namespaces().Delete(bg(), ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for {
		_, err := env.kube.CoreV1().Namespaces().Get(bg(), ns, metav1.GetOptions{})
		if apierrs.IsNotFound(err) {
			break
		}
		if time.Since(start) > 3*time.Minute {
			t.Fatalf("namespace %s still there after %v", ns, time.Since(start))
		}
		time.Sleep(interval)
	}
	t.Logf("namespace deleted in %v", time.Since(start).Round(100*time.Millisecond))
	time.Sleep(5 * time.Second) // retries, if any, back off in milliseconds to seconds

	after, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	// Error lines about the namespace, by the reconciler that logged them.
	var errs, dropped []string
	byController := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(after[len(before):]))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var entry map[string]any
		if !strings.Contains(line, ns) || json.Unmarshal([]byte(line), &entry) != nil {
			continue
		}
		if strings.Contains(line, "is terminating: writes there are dropped") {
			dropped = append(dropped, line)
		}
		if level := fmt.Sprint(entry["severity"]); level != "ERROR" {
			continue
		}
		controller := fmt.Sprint(entry["knative.dev/controller"])
		byController[controller]++
		if strings.HasSuffix(controller, ".routeaddress.Reconciler") {
			errs = append(errs, line)
		}
	}
	t.Logf("error lines about %s by reconciler: %v; routeaddress's 'terminating' lines: %d", ns, byController, len(dropped))
	if len(errs) > 0 {
		t.Errorf("%d errors logged by routeaddress, want none; the first: %s", len(errs), errs[0])
	}
	if len(dropped) > 1 {
		t.Errorf("%d 'terminating' lines, want at most one", len(dropped))
	}
}

// TestUnresolvableSaysSo: with the fallback disabled, a load balancer
// outside the cluster leaves the Route's names without an address while
// serving's Ready says nothing of it; a LoadBalancerUnresolvable Warning on
// the Route says so, and the names answer again once the load balancer
// has an address.
func TestUnresolvableSaysSo(t *testing.T) {
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackDisabled)
	ns := namespace(t, "unresolvable")
	route(t, ns, "hello")
	setLoadBalancer(t, ns, "hello", netv1alpha1.LoadBalancerIngressStatus{Domain: "lb.example.com"})
	msg := waitEvent(t, ns, "LoadBalancerUnresolvable")
	if !strings.Contains(msg, `Service "hello" has no endpoints`) {
		t.Errorf("LoadBalancerUnresolvable Warning %q, want it to say that Service \"hello\" has no endpoints", msg)
	}
	t.Logf("Warning LoadBalancerUnresolvable: %s", msg)
	waitShape(t, ns, "hello", shape{Type: corev1.ServiceTypeClusterIP, Headless: true})
	if _, err := env.dns.Lookup(fqdn(ns, "hello")); err == nil {
		t.Errorf("%s answers with no address of its load balancer", fqdn(ns, "hello"))
	}
	setLoadBalancer(t, ns, "hello", ipEntry(lbIPv4))
	waitDNS(t, fqdn(ns, "hello"), "A/AAAA "+lbIPv4)
}

// TestMirroringOverCapacity is what kube-controller-manager does with an
// Endpoints of 2 500 addresses that nobody truncated (a selector-less
// Service's, as the endpoints modes write): the reason ours hold at most
// 1 000.
func TestMirroringOverCapacity(t *testing.T) {
	if env.local == nil {
		skipOrFail(t, "needs the local control plane's kube-controller-manager")
	}
	ns := namespace(t, "mirror")
	if _, err := env.kube.CoreV1().Services(ns).Create(bg(), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "raw"},
		Spec:       corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ips := hostIPs(2500)
	addrs := make([]corev1.EndpointAddress, len(ips))
	for i, ip := range ips {
		addrs[i].IP = ip
	}
	if _, err := env.kube.CoreV1().Endpoints(ns).Create(bg(), &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "raw"},
		Subsets:    []corev1.EndpointSubset{{Addresses: addrs, Ports: []corev1.EndpointPort{{Name: "http", Port: 80}}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var mirrored, slices int
	count := func() error {
		l, err := env.kube.DiscoveryV1().EndpointSlices(ns).List(bg(), metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=raw"})
		if err != nil {
			return err
		}
		mirrored, slices = 0, len(l.Items)
		for _, s := range l.Items {
			mirrored += len(s.Endpoints)
		}
		return nil
	}
	// kube-controller-manager's mirroring is done when the count stops
	// changing between two polls.
	last := -1
	eventually(t, "the mirrored slices settled", func() error {
		if err := count(); err != nil {
			return err
		}
		if mirrored == 0 || mirrored != last {
			last = mirrored
			return fmt.Errorf("%d addresses mirrored so far", mirrored)
		}
		return nil
	})
	ep, err := env.kube.CoreV1().Endpoints(ns).Get(bg(), "raw", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := env.kube.CoreV1().Events(ns).List(bg(), metav1.ListOptions{})
	var reasons []string
	for _, e := range evs.Items {
		reasons = append(reasons, e.Reason+": "+e.Message)
	}
	t.Logf("Endpoints of 2 500 addresses: %d mirrored into %d slices; the Endpoints keep %d addresses, annotations %v; events %q",
		mirrored, slices, len(ep.Subsets[0].Addresses), ep.Annotations, reasons)
	waitAnswers(t, fqdn(ns, "raw"), ips[:mirrored])
	if mirrored != 1000 {
		t.Errorf("kube-controller-manager mirrored %d of 2 500 addresses; the endpoints modes are built on it mirroring 1 000", mirrored)
	}
}
