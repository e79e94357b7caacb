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

	corev1 "k8s.io/api/core/v1"

	"knative.dev/route-address/test/cluster"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

// TestWithoutMirroring: which modes answer on a cluster whose
// kube-controller-manager runs neither the Endpoints controller nor the
// EndpointSlice mirroring controller (KEP-4974's clusters without them;
// this suite never runs the Endpoints controller: the Routes' Services
// have no selector). CoreDNS reads EndpointSlices only. One namespace per
// mode, through its annotation, each with a Route created in the mode and
// one switched to it from ExternalName:
//   - endpointslices and endpointsandslices answer with the gateway's
//     address, both Routes;
//   - endpoints: the switched Route keeps its ExternalName Service (the
//     planner waits for a mirrored slice that never comes) and answers
//     through its CNAME; the Route created in the mode is headless with
//     Endpoints and no slice, and does not answer.
func TestWithoutMirroring(t *testing.T) {
	needLocal(t)
	without := strings.ReplaceAll(cluster.KubeControllerManagerControllers, "endpointslice-mirroring-controller,", "")
	if err := env.local.RestartControllerManager(without); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.local.RestartControllerManager(cluster.KubeControllerManagerControllers); err != nil {
			t.Error(err)
		}
	})
	setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	t.Cleanup(func() { setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled) })
	gw := namespace(t, "gw")
	const ip = "198.19.0.170"
	gatewayService(t, gw, "gateway", ip, 80)
	external := shape{Type: corev1.ServiceTypeExternalName, ExternalName: fmt.Sprintf(gwDomain, gw)}
	for _, tc := range []struct {
		mode     netcfg.RouteAddressMode
		switched shape // the Route switched from ExternalName
		created  shape // the Route created in the mode
		answers  bool  // whether the created one answers
	}{{
		mode:     netcfg.RouteAddressModeEndpointSlices,
		switched: shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Slices: []string{"%s-ipv4 IPv4 " + ip}},
		created:  shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Slices: []string{"%s-ipv4 IPv4 " + ip}},
		answers:  true,
	}, {
		mode:     netcfg.RouteAddressModeEndpointsAndSlices,
		switched: shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Endpoints: []string{ip}, SkipMirror: true, Slices: []string{"%s-ipv4 IPv4 " + ip}},
		created:  shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Endpoints: []string{ip}, SkipMirror: true, Slices: []string{"%s-ipv4 IPv4 " + ip}},
		answers:  true,
	}, {
		mode:     netcfg.RouteAddressModeEndpoints,
		switched: shape{Type: corev1.ServiceTypeExternalName, ExternalName: fmt.Sprintf(gwDomain, gw), Endpoints: []string{ip}},
		created:  shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Endpoints: []string{ip}},
		answers:  false,
	}} {
		ns := namespace(t, "nomirror")
		route(t, ns, "switched")
		setLoadBalancer(t, ns, "switched", internalEntry(fmt.Sprintf(gwDomain, gw)))
		waitShape(t, ns, "switched", external)
		answers(t, fqdn(ns, "switched"), ip)

		annotateMode(t, ns, string(tc.mode))
		route(t, ns, "created")
		setLoadBalancer(t, ns, "created", internalEntry(fmt.Sprintf(gwDomain, gw)))
		waitShape(t, ns, "switched", named(tc.switched, "switched"))
		waitShape(t, ns, "created", named(tc.created, "created"))
		answers(t, fqdn(ns, "switched"), ip)
		if tc.answers {
			answers(t, fqdn(ns, "created"), ip)
		} else {
			// The name stays without an answer: it is not a moment's gap.
			time.Sleep(3 * time.Second)
			if a, err := env.dns.Lookup(fqdn(ns, "created")); err == nil {
				t.Errorf("%s: the Route created in the mode answers %s without mirroring", tc.mode, a)
			}
		}
		sw, _ := env.dns.Lookup(fqdn(ns, "switched"))
		cr, err := env.dns.Lookup(fqdn(ns, "created"))
		created := cr.String()
		if err != nil {
			created = err.Error()
		}
		t.Logf("%-18s without mirroring: switched from ExternalName: %s; created in the mode: %s", tc.mode, sw, created)
	}
}
