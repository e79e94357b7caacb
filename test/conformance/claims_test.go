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
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/preview/cli"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// TestSliceClaimingOurManager: somebody creates an EndpointSlice for a
// Route's Service, labelled with this controller's managed-by value, with
// no owner and another address. As the EndpointSlice controller does with
// slices that carry its value, the controller treats it as its own: its
// creation reconciles the Route, and it is deleted, so that the name
// answers only the load balancer's address.
func TestSliceClaimingOurManager(t *testing.T) {
	needLocal(t)
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", "198.19.0.130", 80)
	ns := namespace(t, "claims")
	route(t, ns, "hello")
	setLoadBalancer(t, ns, "hello", internalEntry(fmt.Sprintf(gwDomain, gw)))
	waitShape(t, ns, "hello", shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Slices: []string{"hello-ipv4 IPv4 198.19.0.130"}})
	waitDNS(t, fqdn(ns, "hello"), "A/AAAA 198.19.0.130")

	claim := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hello-by-hand", Labels: map[string]string{
			discoveryv1.LabelServiceName: "hello", discoveryv1.LabelManagedBy: names.ManagedBy,
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"198.19.0.131"}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http2"), Port: ptr.To[int32](80), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	created := time.Now()
	if _, err := env.kube.DiscoveryV1().EndpointSlices(ns).Create(bg(), claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyWithin(t, 10*time.Second, "the slice that claims our manager deleted", func() error {
		_, err := env.kube.DiscoveryV1().EndpointSlices(ns).Get(bg(), claim.Name, metav1.GetOptions{})
		if apierrs.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (%v)", err)
	})
	t.Logf("the slice that claims our manager was deleted %v after it was created", time.Since(created).Round(time.Millisecond))
	waitDNS(t, fqdn(ns, "hello"), "A/AAAA 198.19.0.130")
	if got, err := observe(ns, "hello"); err != nil || len(got.Slices) != 1 {
		t.Errorf("hello is %+v (%v), want our one slice", got, err)
	}
}

// scrapedRoute restarts the controller with its metrics served (their URL
// is returned), switches to EndpointSlices and makes Route "hello" in a
// namespace named after prefix (returned), its KIngress pointing at a
// gateway whose ClusterIP is ip, and waits until the Route's Service is
// headless with our slice.
func scrapedRoute(t *testing.T, prefix, ip string) (string, string) {
	t.Helper()
	needLocal(t)
	t.Cleanup(restartAfter(t))
	metrics := enablePrometheus(t)
	restartController(t)
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", ip, 80)
	ns := namespace(t, prefix)
	route(t, ns, "hello")
	setLoadBalancer(t, ns, "hello", internalEntry(fmt.Sprintf(gwDomain, gw)))
	waitShape(t, ns, "hello", shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Slices: []string{"hello-ipv4 IPv4 " + ip}})
	return metrics, ns
}

// TestNotOwnedClears: an Endpoints somebody made under a Route's name (in
// EndpointSlices mode) holds that name: a NotOwned Warning on the Route
// names it, and the controller counts the name pending for NotOwned.
// Deleting it reconciles the Route through the Service the Endpoints
// served, and the name stops being pending at once, not at the next resync.
func TestNotOwnedClears(t *testing.T) {
	metrics, ns := scrapedRoute(t, "notowned", "198.19.0.132")

	notOwned := func() (int, error) {
		s, err := scrape(metrics)
		if err != nil {
			return 0, err
		}
		return int(s.sum(`kn_routeaddress_names_pending_count{`, `kn_routeaddress_reason="NotOwned"`)), nil
	}
	var before int
	eventually(t, "the controller's metrics", func() (err error) {
		before, err = notOwned()
		return err
	})
	ep := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: "hello",
		Labels: map[string]string{discoveryv1.LabelSkipMirror: "true"},
	}}
	if _, err := env.kube.CoreV1().Endpoints(ns).Create(bg(), ep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	msg := waitEvent(t, ns, "NotOwned")
	if !strings.Contains(msg, `Endpoints "hello"`) {
		t.Errorf("NotOwned Warning %q, want it to name Endpoints \"hello\"", msg)
	}
	t.Logf("Warning NotOwned: %s", msg)
	eventually(t, "the name counted pending for NotOwned", func() error {
		if n, err := notOwned(); err != nil || n != before+1 {
			return fmt.Errorf("%d names pending for NotOwned (%v), want %d", n, err, before+1)
		}
		return nil
	})
	deleted := time.Now()
	if err := env.kube.CoreV1().Endpoints(ns).Delete(bg(), ep.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyWithin(t, 10*time.Second, "the name no longer pending", func() error {
		if n, err := notOwned(); err != nil || n != before {
			return fmt.Errorf("%d names pending for NotOwned (%v), want %d", n, err, before)
		}
		return nil
	})
	t.Logf("the name stopped being pending %s after the Endpoints was deleted", time.Since(deleted).Round(time.Millisecond))
}

// TestForeignSliceReported: somebody creates an EndpointSlice for a Route's
// Service that claims kube-controller-manager's EndpointSlice controller,
// with no owner and another address. DNS answers its address with the
// load balancer's (CoreDNS reads every slice of the Service); it is not the
// Route's, so the controller leaves it alone and reports it: a
// ForeignEndpointSlice Warning on the Route names the slice and its
// address, the foreign slices' gauge counts it, and `kubectl route-address
// status` and `plan` list it. Once it is deleted the gauge counts it no
// more and the name answers the load balancer's address alone.
func TestForeignSliceReported(t *testing.T) {
	metrics, ns := scrapedRoute(t, "foreign", "198.19.0.136")
	waitDNS(t, fqdn(ns, "hello"), "A/AAAA 198.19.0.136")

	foreign := func() (int, error) {
		s, err := scrape(metrics)
		if err != nil {
			return 0, err
		}
		return int(s.sum(`kn_routeaddress_endpointslices_foreign_count`)), nil
	}
	var before int
	eventually(t, "the controller's metrics", func() (err error) {
		before, err = foreign()
		return err
	})
	forged := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hello-forged", Labels: map[string]string{
			discoveryv1.LabelServiceName: "hello", discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io",
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"198.19.0.137"}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http2"), Port: ptr.To[int32](80), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	if _, err := env.kube.DiscoveryV1().EndpointSlices(ns).Create(bg(), forged, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDNS(t, fqdn(ns, "hello"), "A/AAAA 198.19.0.136,198.19.0.137")
	msg := waitEvent(t, ns, "ForeignEndpointSlice")
	t.Logf("Warning ForeignEndpointSlice: %s", msg)
	for _, want := range []string{`EndpointSlice "hello-forged"`, `"endpointslice-controller.k8s.io"`, "198.19.0.137", `Route "hello"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("ForeignEndpointSlice Warning %q, want it to name %s", msg, want)
		}
	}
	eventually(t, "the foreign slice counted", func() error {
		if n, err := foreign(); err != nil || n != before+1 {
			return fmt.Errorf("%d foreign slices (%v), want %d", n, err, before+1)
		}
		return nil
	})
	for _, args := range [][]string{{"status", "-n", ns}, {"plan", "--mode", "endpointslices", "-n", ns}} {
		var out, errOut bytes.Buffer
		cli.Main(context.Background(), append(args, "--kubeconfig", env.local.Kubeconfig), &out, &errOut)
		if !strings.Contains(out.String(), `EndpointSlice "hello-forged" (managed by "endpointslice-controller.k8s.io")`) {
			t.Errorf("kubectl route-address %s does not list the foreign slice:\n%s%s", strings.Join(args, " "), out.String(), errOut.String())
		}
	}
	// Left alone: still there, as created, once the Route was reconciled.
	if got, err := env.kube.DiscoveryV1().EndpointSlices(ns).Get(bg(), forged.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the foreign slice: %v, want it left alone", err)
	} else if got.Generation != 1 || len(got.OwnerReferences) != 0 {
		t.Errorf("the foreign slice was written: generation %d, owners %v", got.Generation, got.OwnerReferences)
	}

	if err := env.kube.DiscoveryV1().EndpointSlices(ns).Delete(bg(), forged.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyWithin(t, 10*time.Second, "the foreign slice no longer counted", func() error {
		if n, err := foreign(); err != nil || n != before {
			return fmt.Errorf("%d foreign slices (%v), want %d", n, err, before)
		}
		return nil
	})
	waitDNS(t, fqdn(ns, "hello"), "A/AAAA 198.19.0.136")
}
