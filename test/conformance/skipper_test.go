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
	"net"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	"knative.dev/serving/pkg/apis/serving/v1beta1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

// Skipper (zalando/skipper) is a real ingress that refuses ExternalName
// backends by default; by default it reads v1 Endpoints, with
// -enable-kubernetes-endpointslices EndpointSlices. Two instances run
// against the local control plane, one of each; an Ingress per Route sends
// its host to the Route's Service, rewriting the Host header to the Route's
// (a Knative gateway routes on it), and the gateway stand-in in the
// suite's network namespace answers with the Host it saw.
const skipperGatewayIP = "198.19.0.91"

type skipperEnv struct {
	ns, gw   string
	skippers []*cluster.Skipper
}

// byIP and byName are the two Routes: load balancer IP, and DomainInternal.
const (
	byIP   = "byip"
	byName = "byname"
)

func (e *skipperEnv) host(route string) string { return route + "." + e.ns + ".skipper.test" }

func setupSkipper(t *testing.T) *skipperEnv {
	t.Helper()
	if env.local == nil {
		skipOrFail(t, "Skipper runs against the local control plane only")
	}
	setupNetns(t, dataLBIP, skipperGatewayIP)
	e := &skipperEnv{gw: namespace(t, "gw"), ns: namespace(t, "skipper")}
	gatewayService(t, e.gw, "gateway", skipperGatewayIP, 80)
	setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	route(t, e.ns, byIP)
	setLoadBalancer(t, e.ns, byIP, ipEntry(dataLBIP))
	route(t, e.ns, byName)
	setLoadBalancer(t, e.ns, byName, internalEntry(fmt.Sprintf(gwDomain, e.gw)))
	for _, r := range []string{byIP, byName} {
		ing := cluster.SkipperIngress(e.ns, r, e.host(r), r, fqdn(e.ns, r))
		if _, err := env.kube.NetworkingV1().Ingresses(e.ns).Create(bg(), ing, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, slices := range []bool{false, true} {
		s, err := env.local.StartSkipper(bg(), slices)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cluster.Stop(s.Cmd()) })
		e.skippers = append(e.skippers, s)
	}
	return e
}

// skipperWant is the table of issue 11: what each Skipper answers for each
// mode and load balancer.
func skipperWant(mode netcfg.RouteAddressMode, route string, s *cluster.Skipper) int {
	switch mode {
	case netcfg.RouteAddressModeExternalName:
		if route == byIP {
			return http.StatusOK // upstream: headless + Endpoints (mirrored into slices)
		}
		return http.StatusNotFound // ExternalName: the route is dropped
	case netcfg.RouteAddressModeEndpointSlices:
		if s.Name == "endpoints" {
			return http.StatusBadGateway // no Endpoints: "no endpoints"
		}
	}
	return http.StatusOK
}

// settle waits until GET through s for route answers want, then requires
// the same answer for 1.5 s (three of Skipper's polls), so that a state
// left over from the previous mode cannot pass for this one.
func (e *skipperEnv) settle(t *testing.T, s *cluster.Skipper, route string, want int) (int, string) {
	t.Helper()
	e.await(t, s, route, want)
	return e.hold(t, s, route, want)
}

// check asks once and says how the answer differs from want.
func (e *skipperEnv) check(s *cluster.Skipper, route string, want int) error {
	code, body, err := s.Get(e.host(route))
	if err != nil {
		return err
	}
	if code != want {
		return fmt.Errorf("HTTP %d %q, want %d", code, body, want)
	}
	if want == http.StatusOK && body != "gateway saw host="+fqdn(e.ns, route) {
		return fmt.Errorf("HTTP 200 %q: the gateway did not see the Route's host", body)
	}
	return nil
}

// await waits until GET through s for route answers want.
func (e *skipperEnv) await(t *testing.T, s *cluster.Skipper, route string, want int) {
	t.Helper()
	eventually(t, fmt.Sprintf("Skipper (%s) GET %s → %d", s.Name, e.host(route), want), func() error { return e.check(s, route, want) })
}

// hold requires the answer want for 1.5 s and returns the last one.
func (e *skipperEnv) hold(t *testing.T, s *cluster.Skipper, route string, want int) (int, string) {
	t.Helper()
	for range 6 {
		time.Sleep(250 * time.Millisecond)
		if err := e.check(s, route, want); err != nil {
			t.Fatalf("Skipper (%s) GET %s: answered %d, then: %v", s.Name, e.host(route), want, err)
		}
	}
	code, body, _ := s.Get(e.host(route))
	return code, body
}

// waitModeShape waits until both Routes' Services have the mode's objects.
func (e *skipperEnv) waitModeShape(t *testing.T, mode netcfg.RouteAddressMode) {
	t.Helper()
	waitModeObjects(t, e.ns, mode, map[string]bool{byName: true}, byIP, byName)
}

// waitModeObjects waits until each of the Services names in ns has exactly
// the objects of mode and nothing left from another mode: in ExternalName
// mode the names in externalName are ExternalName; in our modes each is
// headless with our Endpoints only in the Endpoints modes, our slices only
// in the slice modes, and mirrored slices only in Endpoints mode.
func waitModeObjects(t *testing.T, ns string, mode netcfg.RouteAddressMode, externalName map[string]bool, names ...string) {
	t.Helper()
	for _, r := range names {
		eventually(t, fmt.Sprintf("%s/%s in mode %s", ns, r, mode), func() error {
			s, err := observe(ns, r)
			if err != nil {
				return err
			}
			if !mode.Managed() {
				if externalName[r] && s.ExternalName == "" {
					return fmt.Errorf("not ExternalName yet: %+v", s)
				}
				return nil
			}
			switch {
			case !s.Headless || s.ExternalName != "":
				return fmt.Errorf("not headless yet: %+v", s)
			case mode.WritesEndpoints() != (s.Endpoints != nil):
				return fmt.Errorf("Endpoints: %+v", s)
			case mode.WritesEndpointSlices() != (len(s.Slices) > 0):
				return fmt.Errorf("slices: %+v", s)
			case (mode == netcfg.RouteAddressModeEndpoints) != (s.Mirrored > 0):
				return fmt.Errorf("mirrored slices: %+v", s)
			}
			return nil
		})
	}
}

// TestSkipper asserts, for every mode, both Skipper configurations and
// both load balancers, the HTTP status a client of Skipper gets, and on
// success that the gateway saw the Route's host.
func TestSkipper(t *testing.T) {
	e := setupSkipper(t)
	var table []string
	for _, mode := range []netcfg.RouteAddressMode{netcfg.RouteAddressModeExternalName, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressModeEndpointsAndSlices} {
		setMode(t, mode, netcfg.RouteAddressFallbackEnabled)
		e.waitModeShape(t, mode)
		for _, r := range []string{byIP, byName} {
			row := fmt.Sprintf("| %s | %s |", mode, map[string]string{byIP: "IP", byName: "DomainInternal"}[r])
			for _, s := range e.skippers {
				code, body := e.settle(t, s, r, skipperWant(mode, r, s))
				if code == http.StatusOK {
					body = "the gateway saw the Route's host"
				}
				row += fmt.Sprintf(" %d %s |", code, strings.TrimSpace(firstLine(body)))
			}
			table = append(table, row)
		}
	}
	t.Logf("observed (Skipper default: v1 Endpoints | -enable-kubernetes-endpointslices):\n| mode | load balancer | %s | %s |\n%s",
		e.skippers[0].Name, e.skippers[1].Name, strings.Join(table, "\n"))

	t.Run("DomainMapping", func(t *testing.T) { skipperDomainMapping(t, e) })
	t.Run("SwitchUnderLoad", func(t *testing.T) { skipperSwitchUnderLoad(t, e) })
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 60 {
		line = line[:60] + "…"
	}
	return line
}

// skipperDomainMapping: a DomainMapping's KIngress has the Route's Service
// as its backend, which net-kourier and Skipper resolve through
// EndpointSlices by kubernetes.io/service-name. In EndpointSlices mode,
// that lookup gives the gateway's address and port, and Skipper, sent to
// the same backend, reaches the gateway with the Route's host.
func skipperDomainMapping(t *testing.T, e *skipperEnv) {
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	e.waitModeShape(t, netcfg.RouteAddressModeEndpointSlices)
	domain := e.ns + ".example.org"
	if _, err := env.net.NetworkingV1alpha1().ClusterDomainClaims().Create(bg(), &netv1alpha1.ClusterDomainClaim{
		ObjectMeta: metav1.ObjectMeta{Name: domain},
		Spec:       netv1alpha1.ClusterDomainClaimSpec{Namespace: e.ns},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.net.NetworkingV1alpha1().ClusterDomainClaims().Delete(bg(), domain, metav1.DeleteOptions{})
	})
	if _, err := env.serving.ServingV1beta1().DomainMappings(e.ns).Create(bg(), &v1beta1.DomainMapping{
		ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: domain},
		Spec:       v1beta1.DomainMappingSpec{Ref: duckRef(e.ns, byName)},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var backend netv1alpha1.IngressBackendSplit
	eventually(t, "the DomainMapping's KIngress", func() error {
		ing, err := env.net.NetworkingV1alpha1().Ingresses(e.ns).Get(bg(), domain, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if len(ing.Spec.Rules) == 0 || ing.Spec.Rules[0].HTTP == nil || len(ing.Spec.Rules[0].HTTP.Paths) == 0 || len(ing.Spec.Rules[0].HTTP.Paths[0].Splits) == 0 {
			return fmt.Errorf("no backend yet: %+v", ing.Spec.Rules)
		}
		backend = ing.Spec.Rules[0].HTTP.Paths[0].Splits[0]
		return nil
	})
	t.Logf("DomainMapping %s → KIngress backend Service %s/%s port %s", domain, backend.ServiceNamespace, backend.ServiceName, backend.ServicePort.String())

	// A consumer that reads EndpointSlices by service name.
	svc, err := env.kube.CoreV1().Services(backend.ServiceNamespace).Get(bg(), backend.ServiceName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var portName string
	for _, p := range svc.Spec.Ports {
		if p.Port == int32(backend.ServicePort.IntValue()) {
			portName = p.Name
		}
	}
	l, err := env.kube.DiscoveryV1().EndpointSlices(backend.ServiceNamespace).List(bg(), metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + backend.ServiceName})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sl := range l.Items {
		for _, ep := range sl.Endpoints {
			if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
				continue
			}
			for _, p := range sl.Ports {
				if p.Name != nil && *p.Name == portName && p.Port != nil {
					for _, a := range ep.Addresses {
						got = append(got, net.JoinHostPort(a, fmt.Sprint(*p.Port)))
					}
				}
			}
		}
	}
	sort.Strings(got)
	if want := []string{net.JoinHostPort(skipperGatewayIP, "80")}; !slices.Equal(got, want) {
		t.Errorf("EndpointSlices of the DomainMapping's backend %s/%s (port %q) give %v, want %v", backend.ServiceNamespace, backend.ServiceName, portName, got, want)
	}

	ing := cluster.SkipperIngress(e.ns, "dm", domain, backend.ServiceName, fqdn(e.ns, byName))
	if _, err := env.kube.NetworkingV1().Ingresses(e.ns).Create(bg(), ing, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s := e.skippers[1] // the one that reads EndpointSlices, as net-kourier does
	eventually(t, "Skipper (endpointslices) GET "+domain, func() error {
		code, body, err := s.Get(domain)
		if err != nil {
			return err
		}
		if code != http.StatusOK || body != "gateway saw host="+fqdn(e.ns, byName) {
			return fmt.Errorf("HTTP %d %q", code, body)
		}
		return nil
	})
	t.Logf("EndpointSlices of %s: %v; Skipper (endpointslices) GET %s → 200, gateway saw host=%s", backend.ServiceName, got, domain, fqdn(e.ns, byName))
}

// skipperSwitchUnderLoad switches ExternalName → EndpointsAndSlices →
// EndpointSlices → ExternalName while a loop sends a request every 50 ms
// through both Skippers for both Routes, and reports per switch the
// requests whose answer was not the one the new mode settles on (counted
// from the switch until every answer settled, and while it is held for
// 1.5 s per cell).
func skipperSwitchUnderLoad(t *testing.T, e *skipperEnv) {
	setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	e.waitModeShape(t, netcfg.RouteAddressModeExternalName)
	for _, s := range e.skippers {
		for _, r := range []string{byIP, byName} {
			e.settle(t, s, r, skipperWant(netcfg.RouteAddressModeExternalName, r, s))
		}
	}
	type key struct{ skipper, route string }
	var (
		mu      sync.Mutex
		want    = map[key]int{}
		sent    = map[key]int{}
		off     = map[key]int{}
		errs    = map[key]int{}
		stop    = make(chan struct{})
		stopped sync.WaitGroup
	)
	setWant := func(mode netcfg.RouteAddressMode) {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range e.skippers {
			for _, r := range []string{byIP, byName} {
				want[key{s.Name, r}] = skipperWant(mode, r, s)
			}
		}
	}
	take := func() (map[key]int, map[key]int, map[key]int) {
		mu.Lock()
		defer mu.Unlock()
		a, b, c := sent, off, errs
		sent, off, errs = map[key]int{}, map[key]int{}, map[key]int{}
		return a, b, c
	}
	setWant(netcfg.RouteAddressModeExternalName)
	for _, s := range e.skippers {
		for _, r := range []string{byIP, byName} {
			stopped.Add(1)
			go func() {
				defer stopped.Done()
				k := key{s.Name, r}
				for {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
					code, body, err := s.Get(e.host(r))
					mu.Lock()
					sent[k]++
					switch {
					case err != nil:
						errs[k]++
					case code != want[k] || code == http.StatusOK && body != "gateway saw host="+fqdn(e.ns, r):
						off[k]++
					}
					mu.Unlock()
				}
			}()
		}
	}
	defer func() { close(stop); stopped.Wait() }()

	from := netcfg.RouteAddressModeExternalName
	for _, mode := range []netcfg.RouteAddressMode{netcfg.RouteAddressModeEndpointsAndSlices, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeExternalName} {
		take()
		start := time.Now()
		setWant(mode)
		setMode(t, mode, netcfg.RouteAddressFallbackEnabled)
		e.waitModeShape(t, mode)
		for _, s := range e.skippers {
			for _, r := range []string{byIP, byName} {
				e.await(t, s, r, skipperWant(mode, r, s))
			}
		}
		settled := time.Since(start)
		for _, s := range e.skippers {
			for _, r := range []string{byIP, byName} {
				e.hold(t, s, r, skipperWant(mode, r, s))
			}
		}
		sent, off, errs := take()
		var cells []string
		total := 0
		for _, s := range e.skippers {
			for _, r := range []string{byIP, byName} {
				k := key{s.Name, r}
				total += sent[k]
				cells = append(cells, fmt.Sprintf("%s/%s %d of %d (%d errors)", s.Name, r, off[k]+errs[k], sent[k], errs[k]))
			}
		}
		if total == 0 {
			t.Fatal("the request loop sent nothing")
		}
		t.Logf("%s → %s: settled in %v; requests not answered as the new mode settles: %s", from, mode, settled.Round(100*time.Millisecond), strings.Join(cells, ", "))
		from = mode
	}
}
