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
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	networkingcfg "knative.dev/networking/pkg/config"
	"knative.dev/pkg/apis"
	"knative.dev/pkg/kmeta"
	v1 "knative.dev/serving/pkg/apis/serving/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/dns"
)

// prober resolves names every 50 ms and records every lookup that fails
// or answers other addresses than the expected ones.
type prober struct {
	names []string
	want  string
	stop  chan struct{}
	done  sync.WaitGroup

	mu       sync.Mutex
	failures []probeFailure
	probes   int
}

type probeFailure struct {
	at   time.Time
	name string
	err  string
}

// probe starts a prober for names, which must each resolve to exactly the
// addresses want (through a CNAME or not).
func probe(want []string, names ...string) *prober {
	w := slices.Clone(want)
	slices.Sort(w)
	p := &prober{names: names, want: strings.Join(w, ","), stop: make(chan struct{})}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
			for _, n := range p.names {
				a, err := env.dns.Lookup(n)
				p.mu.Lock()
				p.probes++
				switch {
				case err != nil:
					p.failures = append(p.failures, probeFailure{time.Now(), n, err.Error()})
				case len(a.Addresses) == 0:
					p.failures = append(p.failures, probeFailure{time.Now(), n, "no addresses: " + a.String()})
				case strings.Join(a.Addresses, ",") != p.want:
					p.failures = append(p.failures, probeFailure{time.Now(), n, "wrong addresses: " + a.String() + ", want " + p.want})
				}
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// take returns and clears the failures so far.
func (p *prober) take() (int, []probeFailure) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, f := p.probes, p.failures
	p.probes, p.failures = 0, nil
	return n, f
}

func (p *prober) close() {
	close(p.stop)
	p.done.Wait()
}

func gapOf(fs []probeFailure) time.Duration {
	if len(fs) == 0 {
		return 0
	}
	return fs[len(fs)-1].at.Sub(fs[0].at) + 50*time.Millisecond
}

// TestTransitions switches the mode ExternalName → EndpointSlices →
// Endpoints → EndpointsAndSlices → ExternalName → Endpoints while a prober resolves
// the Route's names every 50 ms. Switching among our modes and from
// ExternalName must lose no lookup; switching back to ExternalName
// recreates the Services (upstream does, ClusterIP → ExternalName is
// immutable), the one allowed gap, which is reported.
func TestTransitions(t *testing.T) {
	setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", "198.19.0.30", 80)
	ns := namespace(t, "transitions")
	route(t, ns, "hello", "canary")
	setLoadBalancer(t, ns, "hello", internalEntry(fmt.Sprintf(gwDomain, gw)))
	names := []string{fqdn(ns, "hello"), fqdn(ns, "canary-hello")}
	for _, n := range names {
		waitDNS(t, n, "CNAME "+fmt.Sprintf(gwDomain, gw)+" A/AAAA 198.19.0.30")
	}

	p := probe([]string{"198.19.0.30"}, names...)
	defer p.close()
	steps := []struct {
		mode        netcfg.RouteAddressMode
		want        shape
		recreates   bool
		description string
	}{
		{netcfg.RouteAddressModeEndpointSlices, shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Slices: []string{"%s-ipv4 IPv4 198.19.0.30"}}, false, "ExternalName → headless is an update"},
		{netcfg.RouteAddressModeEndpoints, shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Endpoints: []string{"198.19.0.30"}, Mirrored: 1}, false, "slices deleted once the Endpoints are mirrored"},
		{netcfg.RouteAddressModeEndpointsAndSlices, shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Endpoints: []string{"198.19.0.30"}, SkipMirror: true, Slices: []string{"%s-ipv4 IPv4 198.19.0.30"}}, false, "slices created, label added"},
		{netcfg.RouteAddressModeExternalName, shape{Type: corev1.ServiceTypeExternalName, ExternalName: fmt.Sprintf(gwDomain, gw)}, true, "upstream recreates headless → ExternalName"},
		{netcfg.RouteAddressModeEndpoints, shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Endpoints: []string{"198.19.0.30"}, Mirrored: 1}, false, "headless once the Endpoints are mirrored"},
	}
	for _, s := range steps {
		setMode(t, s.mode, netcfg.RouteAddressFallbackEnabled)
		for _, n := range []string{"hello", "canary-hello"} {
			waitShape(t, ns, n, named(s.want, n))
		}
		time.Sleep(time.Second) // let the prober see the settled state
		probes, fails := p.take()
		t.Logf("→ %-18s %4d lookups, %d failed, gap %v (%s)", s.mode, probes, len(fails), gapOf(fails), s.description)
		if probes == 0 {
			t.Fatalf("→ %s: the prober made no lookup", s.mode)
		}
		if len(fails) > 0 && !s.recreates {
			t.Errorf("→ %s: %d failed lookups where no Service is recreated, first: %+v", s.mode, len(fails), fails[0])
		}
	}
}

// TestTagAddedAndRemoved: a new tag gets its name, a removed one loses it.
func TestTagAddedAndRemoved(t *testing.T) {
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	ns := namespace(t, "tags")
	route(t, ns, "hello")
	setLoadBalancer(t, ns, "hello", ipEntry(lbIPv4))
	waitDNS(t, fqdn(ns, "hello"), "A/AAAA "+lbIPv4)

	setTags(t, ns, "hello", "blue")
	waitShape(t, ns, "blue-hello", shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Slices: []string{"blue-hello-ipv4 IPv4 " + lbIPv4}})
	waitDNS(t, fqdn(ns, "blue-hello"), "A/AAAA "+lbIPv4)

	setTags(t, ns, "hello")
	waitGone(t, ns, "blue-hello")
	waitDNS(t, fqdn(ns, "blue-hello"), dns.ErrNotFound.Error())
	waitDNS(t, fqdn(ns, "hello"), "A/AAAA "+lbIPv4)
}

// TestTagTemplateChanged: a new tag-template in config-network renames the
// tag's Service, as upstream would: the new name gets its Service and
// slices (and DNS answers), the old name goes. The names come from the
// placeholders the reconciler reuses between reconciles, so this is also
// the end-to-end check that a configuration change is not served from them.
func TestTagTemplateChanged(t *testing.T) {
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	ns := namespace(t, "tagtmpl")
	route(t, ns, "hello", "blue")
	setLoadBalancer(t, ns, "hello", ipEntry(lbIPv4))
	waitDNS(t, fqdn(ns, "blue-hello"), "A/AAAA "+lbIPv4)

	patchConfigNetwork(t, map[string]string{networkingcfg.TagTemplateKey: "{{.Tag}}-x-{{.Name}}"})
	t.Cleanup(func() {
		patchConfigNetwork(t, map[string]string{networkingcfg.TagTemplateKey: networkingcfg.DefaultTagTemplate})
	})

	waitShape(t, ns, "blue-x-hello", shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Slices: []string{"blue-x-hello-ipv4 IPv4 " + lbIPv4}})
	waitDNS(t, fqdn(ns, "blue-x-hello"), "A/AAAA "+lbIPv4)
	waitGone(t, ns, "blue-hello")
	waitDNS(t, fqdn(ns, "blue-hello"), dns.ErrNotFound.Error())
	waitDNS(t, fqdn(ns, "hello"), "A/AAAA "+lbIPv4)
}

// TestGatewayRecreated: the DomainInternal target Service is deleted and
// recreated with a new ClusterIP; the Route's endpoints follow.
func TestGatewayRecreated(t *testing.T) {
	setMode(t, netcfg.RouteAddressModeEndpointsAndSlices, netcfg.RouteAddressFallbackDisabled)
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", "198.19.0.40", 80)
	ns := namespace(t, "follow")
	route(t, ns, "hello")
	setLoadBalancer(t, ns, "hello", internalEntry(fmt.Sprintf(gwDomain, gw)))
	waitDNS(t, fqdn(ns, "hello"), "A/AAAA 198.19.0.40")

	if err := env.kube.CoreV1().Services(gw).Delete(bg(), "gateway", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Gone: unresolvable, fallback disabled → headless without endpoints.
	waitShape(t, ns, "hello", shape{Type: corev1.ServiceTypeClusterIP, Headless: true})
	gatewayService(t, gw, "gateway", "198.19.0.41", 80)
	waitShape(t, ns, "hello", shape{
		Type: corev1.ServiceTypeClusterIP, Headless: true,
		Endpoints: []string{"198.19.0.41"}, SkipMirror: true, Slices: []string{"hello-ipv4 IPv4 198.19.0.41"},
	})
	waitDNS(t, fqdn(ns, "hello"), "A/AAAA 198.19.0.41")
}

// TestConflictingService: a Service someone else made with the Route's
// name is left untouched and the Route gets a Warning event (as serving's
// TestConflictingRouteService expects the Route not to take it over).
func TestConflictingService(t *testing.T) {
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	ns := namespace(t, "conflict")
	theirs, err := env.kube.CoreV1().Services(ns).Create(bg(), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hello", Labels: map[string]string{"owner": "someone-else"}},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeExternalName, ExternalName: "elsewhere.example.com",
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(80)}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Upstream's route reconciler stops at the conflict (ServiceNotOwned)
	// before it makes a KIngress; the test makes one with a load balancer,
	// so that our reconciler would have addresses to write. A second Route
	// in the namespace is the positive control: it gets its slice.
	r := route(t, ns, "hello")
	if _, err := env.net.NetworkingV1alpha1().Ingresses(ns).Create(bg(), &netv1alpha1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hello", OwnerReferences: []metav1.OwnerReference{*kmeta.NewControllerRef(r)}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	setLoadBalancer(t, ns, "hello", ipEntry(lbIPv4))
	route(t, ns, "control")
	setLoadBalancer(t, ns, "control", ipEntry(lbIPv4))
	waitShape(t, ns, "control", shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Slices: []string{"control-ipv4 IPv4 " + lbIPv4}})
	eventually(t, "NotOwned Warning event", func() error {
		evs, err := env.kube.CoreV1().Events(ns).List(bg(), metav1.ListOptions{FieldSelector: "involvedObject.name=hello,reason=NotOwned"})
		if err != nil {
			return err
		}
		for _, e := range evs.Items {
			if e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, `Service "hello" exists and is not controlled by Route "hello"`) {
				return nil
			}
		}
		return fmt.Errorf("no NotOwned event yet")
	})
	// The Route reports the conflict as serving does without route-address.
	eventually(t, "Route IngressReady=False NotOwned", func() error {
		r, err := env.serving.ServingV1().Routes(ns).Get(bg(), "hello", metav1.GetOptions{})
		if err != nil {
			return err
		}
		c := r.Status.GetCondition(v1.RouteConditionIngressReady)
		if c == nil || c.Status != corev1.ConditionFalse || c.Reason != "NotOwned" || !strings.Contains(c.Message, `placeholder Service "hello"`) {
			return fmt.Errorf("IngressReady: %+v", c)
		}
		if ready := r.Status.GetCondition(apis.ConditionReady); ready == nil || ready.Status != corev1.ConditionFalse {
			return fmt.Errorf("Ready: %+v", ready)
		}
		return nil
	})
	time.Sleep(2 * time.Second)
	got, err := env.kube.CoreV1().Services(ns).Get(bg(), "hello", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.UID != theirs.UID || got.ResourceVersion != theirs.ResourceVersion {
		t.Errorf("their Service was modified: %+v", got)
	}
	l, err := env.kube.DiscoveryV1().EndpointSlices(ns).List(bg(), metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=hello"})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 0 {
		t.Errorf("%d EndpointSlices were created next to somebody else's Service", len(l.Items))
	}
}
