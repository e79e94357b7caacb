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
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	v1 "knative.dev/serving/pkg/apis/serving/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

// timeout bounds every wait. It is below the reconciler's expectations
// TTL (30 s), so that a regression that converges only once a stale
// expectation expires fails instead of passing slowly.
const (
	timeout  = 20 * time.Second
	interval = 200 * time.Millisecond
)

func bg() context.Context { return context.Background() }

// eventually polls cond until it returns nil or the timeout passes. A wait
// longer than 2 s is logged with its duration.
func eventually(t *testing.T, what string, cond func() error) {
	t.Helper()
	eventuallyWithin(t, timeout, what, cond)
}

// eventuallyWithin is eventually with its own timeout, for waits on work
// whose length grows with the test's size (hundreds of Routes at the
// controller's client rate limit).
func eventuallyWithin(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	start := time.Now()
	var err error
	if wait.PollUntilContextTimeout(bg(), interval, timeout, true, func(context.Context) (bool, error) {
		err = cond()
		return err == nil, nil
	}) != nil {
		t.Fatalf("timed out after %v waiting for %s: %v", timeout, what, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Logf("waited %v for %s", d.Round(100*time.Millisecond), what)
	}
}

// skipOrFail skips the test, but fails it under CI=true: CI runs as root
// on the local control plane, so a skip there hides a test that did not run.
func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why + " (CI=true: a skip here would hide a test that did not run)")
	}
	t.Skip(why)
}

// setMode writes the route-address keys into config-network.
func setMode(t *testing.T, mode netcfg.RouteAddressMode, fb netcfg.RouteAddressFallback) {
	t.Helper()
	patchConfigNetwork(t, map[string]string{netcfg.RouteAddressModeKey: string(mode), netcfg.RouteAddressExternalNameFallbackKey: string(fb)})
}

// patchConfigNetwork merges data into config-network.
func patchConfigNetwork(t *testing.T, data map[string]string) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"data": data})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.kube.CoreV1().ConfigMaps(cluster.SystemNamespace).Patch(bg(), "config-network",
		types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal("patching config-network:", err)
	}
}

// noRouteLeft waits until the Routes of earlier tests are gone with their
// namespaces, for a test that counts every Route the controller reconciles.
func noRouteLeft(t *testing.T) {
	t.Helper()
	eventuallyWithin(t, 2*time.Minute, "no Route left from other tests", func() error {
		l, err := env.serving.ServingV1().Routes("").List(bg(), metav1.ListOptions{})
		if err != nil {
			return err
		}
		if len(l.Items) > 0 {
			return fmt.Errorf("%d Routes, the first %s/%s", len(l.Items), l.Items[0].Namespace, l.Items[0].Name)
		}
		return nil
	})
}

var nsCounter int

// namespace creates a fresh namespace, deleted when the test ends.
func namespace(t *testing.T, prefix string) string {
	t.Helper()
	nsCounter++
	name := fmt.Sprintf("%s-%d-%d", prefix, time.Now().Unix()%100000, nsCounter)
	if _, err := env.kube.CoreV1().Namespaces().Create(bg(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.kube.CoreV1().Namespaces().Delete(bg(), name, metav1.DeleteOptions{}) })
	return name
}

// gatewayService creates a ClusterIP Service standing in for an ingress's
// internal gateway, at a fixed address.
func gatewayService(t *testing.T, ns, name, ip string, port int32) *corev1.Service {
	t.Helper()
	s, err := env.kube.CoreV1().Services(ns).Create(bg(), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{
			ClusterIP: ip,
			Ports:     []corev1.ServicePort{{Name: "http2", Port: port, TargetPort: intstr.FromInt32(8081)}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal("creating gateway Service:", err)
	}
	return s
}

// route creates a ready Revision and a Route to it with the given tags,
// written fully defaulted since no webhook runs.
func route(t *testing.T, ns, name string, tags ...string) *v1.Route {
	t.Helper()
	rev := name + "-00001"
	if err := cluster.CreateReadyRevision(bg(), env.serving, ns, rev); err != nil {
		t.Fatal(err)
	}
	eventually(t, "Revision "+ns+"/"+rev+" Ready", func() error {
		r, err := env.serving.ServingV1().Revisions(ns).Get(bg(), rev, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !r.IsReady() {
			return fmt.Errorf("conditions %+v", r.Status.Conditions)
		}
		return nil
	})
	r := &v1.Route{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1.RouteSpec{Traffic: traffic(name, tags...)},
	}
	r, err := env.serving.ServingV1().Routes(ns).Create(bg(), r, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// gatewayRoutes creates the Routes r0..r{n-1} in ns, each with the tag
// "tag", whose KIngresses report the DomainInternal of gw's gateway
// Service.
func gatewayRoutes(t *testing.T, ns, gw string, n int) {
	t.Helper()
	for i := range n {
		name := fmt.Sprintf("r%d", i)
		route(t, ns, name, "tag")
		setLoadBalancer(t, ns, name, internalEntry(fmt.Sprintf(gwDomain, gw)))
	}
}

func traffic(name string, tags ...string) []v1.TrafficTarget {
	tt := []v1.TrafficTarget{{RevisionName: name + "-00001", Percent: ptr.To[int64](100), LatestRevision: ptr.To(false)}}
	for _, tag := range tags {
		tt = append(tt, v1.TrafficTarget{RevisionName: name + "-00001", Tag: tag, LatestRevision: ptr.To(false)})
	}
	return tt
}

// setTags replaces the Route's traffic tags.
func setTags(t *testing.T, ns, name string, tags ...string) {
	t.Helper()
	eventually(t, "route update", func() error {
		r, err := env.serving.ServingV1().Routes(ns).Get(bg(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		r.Spec.Traffic = traffic(name, tags...)
		_, err = env.serving.ServingV1().Routes(ns).Update(bg(), r, metav1.UpdateOptions{})
		return err
	})
}

// setLoadBalancer plays the ingress: it waits for the Route's KIngress and
// writes a ready status whose private load balancer has these entries.
func setLoadBalancer(t *testing.T, ns, name string, entries ...netv1alpha1.LoadBalancerIngressStatus) {
	t.Helper()
	eventually(t, "KIngress "+ns+"/"+name+" status", func() error {
		ing, err := env.net.NetworkingV1alpha1().Ingresses(ns).Get(bg(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		ing.Status.ObservedGeneration = ing.Generation
		ing.Status.MarkNetworkConfigured()
		ing.Status.MarkLoadBalancerReady(entries, entries)
		_, err = env.net.NetworkingV1alpha1().Ingresses(ns).UpdateStatus(bg(), ing, metav1.UpdateOptions{})
		return err
	})
}

func ipEntry(ip string) netv1alpha1.LoadBalancerIngressStatus {
	return netv1alpha1.LoadBalancerIngressStatus{IP: ip}
}

func internalEntry(d string) netv1alpha1.LoadBalancerIngressStatus {
	return netv1alpha1.LoadBalancerIngressStatus{DomainInternal: d}
}

// shape summarises what a user sees of one name.
type shape struct {
	Type         corev1.ServiceType
	Headless     bool
	ExternalName string
	Endpoints    []string // addresses in the Endpoints, sorted; nil if none
	SkipMirror   bool
	Slices       []string // "name type addr,addr" of our slices
	Mirrored     int      // slices made by the mirroring controller
}

func observe(ns, name string) (shape, error) {
	var s shape
	svc, err := env.kube.CoreV1().Services(ns).Get(bg(), name, metav1.GetOptions{})
	if err != nil {
		return s, err
	}
	s.Type, s.Headless, s.ExternalName = svc.Spec.Type, svc.Spec.ClusterIP == corev1.ClusterIPNone, svc.Spec.ExternalName
	ep, err := env.kube.CoreV1().Endpoints(ns).Get(bg(), name, metav1.GetOptions{})
	if err == nil {
		s.Endpoints = []string{}
		for _, ss := range ep.Subsets {
			for _, a := range ss.Addresses {
				s.Endpoints = append(s.Endpoints, a.IP)
			}
		}
		sort.Strings(s.Endpoints)
		s.SkipMirror = ep.Labels[discoveryv1.LabelSkipMirror] == "true"
	} else if !apierrs.IsNotFound(err) {
		return s, err
	}
	sls, err := env.kube.DiscoveryV1().EndpointSlices(ns).List(bg(), metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + name})
	if err != nil {
		return s, err
	}
	for _, sl := range sls.Items {
		switch sl.Labels[discoveryv1.LabelManagedBy] {
		case "routeaddress-controller.knative.dev":
			var addrs []string
			for _, e := range sl.Endpoints {
				addrs = append(addrs, e.Addresses...)
			}
			s.Slices = append(s.Slices, fmt.Sprintf("%s %s %s", sl.Name, sl.AddressType, strings.Join(addrs, ",")))
		case "endpointslicemirroring-controller.k8s.io":
			s.Mirrored++
		}
	}
	sort.Strings(s.Slices)
	return s, nil
}

// waitShape waits until name looks like want.
func waitShape(t *testing.T, ns, name string, want shape) {
	t.Helper()
	eventually(t, fmt.Sprintf("%s/%s to be %+v", ns, name, want), func() error {
		got, err := observe(ns, name)
		if err != nil {
			return err
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("got %+v", got)
		}
		return nil
	})
}

// waitGone waits until the Service name and every EndpointSlice of it are
// gone from ns.
func waitGone(t *testing.T, ns, name string) {
	t.Helper()
	eventually(t, ns+"/"+name+" gone", func() error {
		if _, err := observe(ns, name); err == nil {
			return fmt.Errorf("still there")
		}
		l, err := env.kube.DiscoveryV1().EndpointSlices(ns).List(bg(), metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + name})
		if err != nil || len(l.Items) > 0 {
			return fmt.Errorf("slices left: %v %v", l, err)
		}
		return nil
	})
}

// waitDNS waits until name resolves to want (as dns.Answer.String()).
func waitDNS(t *testing.T, name, want string) {
	t.Helper()
	eventually(t, fmt.Sprintf("DNS %s → %s", name, want), func() error {
		a, err := env.dns.Lookup(name)
		got := a.String()
		if err != nil {
			got = err.Error()
		}
		if got != want {
			return fmt.Errorf("got %s", got)
		}
		return nil
	})
}

func fqdn(ns, name string) string { return name + "." + ns + ".svc.cluster.local" }

// externalNameServices counts the ExternalName Services in ns.
func externalNameServices(t *testing.T, ns string) int {
	t.Helper()
	l, err := env.kube.CoreV1().Services(ns).List(bg(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range l.Items {
		if s.Spec.Type == corev1.ServiceTypeExternalName {
			n++
		}
	}
	return n
}

// auditWrites returns the logged writes to Services, Endpoints and
// EndpointSlices in ns since since, whether or not they took effect (a
// count of writes splits them with cluster.Took: one refused is reported,
// never counted; one a killed client left without an answer counts only
// when no other write did what it would have).
func auditWrites(t *testing.T, since time.Time, ns string) []cluster.AuditEvent {
	t.Helper()
	ws, err := env.local.AuditWrites(since, ns)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// auditQuiet waits until the audit log has shown no new write to
// Services, Endpoints or EndpointSlices in ns for quiet: the writes a
// test counts next are all there, however slowly the last of them landed.
func auditQuiet(t *testing.T, since time.Time, ns string, quiet time.Duration) {
	t.Helper()
	last, n := time.Now(), -1
	eventually(t, fmt.Sprintf("no write in %s for %v", ns, quiet), func() error {
		ws, err := env.local.AuditWrites(since, ns)
		if err != nil {
			return err
		}
		if len(ws) != n {
			last, n = time.Now(), len(ws)
		}
		if d := time.Since(last); d < quiet {
			return fmt.Errorf("%d writes, the last %v ago", n, d.Round(time.Millisecond))
		}
		return nil
	})
}

// summarizeWrites counts writes by verb, resource, the program that sent
// them and, for a write that did not take effect, the status it got.
func summarizeWrites(ws []cluster.AuditEvent) string {
	counts := map[string]int{}
	for _, w := range ws {
		k := fmt.Sprintf("%s %s by %s", w.Verb, w.ObjectRef.Resource, w.Agent())
		if !w.Took() {
			k += fmt.Sprintf(" (%d)", w.ResponseStatus.Code)
		}
		counts[k]++
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		fmt.Fprintf(&b, "%d× %s; ", counts[k], k)
	}
	return b.String()
}
