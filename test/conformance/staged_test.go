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
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress"
)

// TestStagedByNamespace: a switch staged by namespace. With config-network
// at ExternalName, one namespace annotated endpointsandslices is switched
// and answers while another stays ExternalName, untouched; then the
// cluster is switched; then the other namespace is annotated externalname
// and goes back alone. An annotation that is not a mode writes nothing to
// the names that exist, whatever the cluster's mode, and says so in a
// Warning on the Namespace.
func TestStagedByNamespace(t *testing.T) {
	const ip = "198.19.0.160"
	setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	t.Cleanup(func() { setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled) })
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", ip, 80)
	first, other := namespace(t, "stage-first"), namespace(t, "stage-other")
	for _, ns := range []string{first, other} {
		route(t, ns, "hello", "tag")
		setLoadBalancer(t, ns, "hello", internalEntry(fmt.Sprintf(gwDomain, gw)))
	}
	external := shape{Type: corev1.ServiceTypeExternalName, ExternalName: fmt.Sprintf(gwDomain, gw)}
	headless := shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Endpoints: []string{ip}, SkipMirror: true, Slices: []string{"%s-ipv4 IPv4 " + ip}}
	// each waits until both names of the Route in ns look like want and
	// answer the gateway's address.
	each := func(ns string, want shape) {
		t.Helper()
		for _, n := range []string{"hello", "tag-hello"} {
			waitShape(t, ns, n, named(want, n))
			answers(t, fqdn(ns, n), ip)
		}
	}
	each(first, external)
	each(other, external)

	// One namespace first.
	auditQuiet(t, time.Now().Add(-time.Minute), other, 3*time.Second)
	since := time.Now()
	annotateMode(t, first, string(netcfg.RouteAddressModeEndpointsAndSlices))
	each(first, headless)
	if ws := auditWrites(t, since, other); len(ws) != 0 {
		t.Errorf("switching %s wrote to %s: %s", first, other, summarizeWrites(ws))
	}
	each(other, external)
	t.Logf("%s annotated endpointsandslices: its names headless with Endpoints and slices; %s still ExternalName, 0 writes", first, other)

	// An annotation that is not a mode (written before the policy of
	// config/, or with it unbound) switches nothing: the namespace staged
	// ahead is not sent back by config-network's ExternalName, the one
	// held back does not switch with the cluster, and each says so in one
	// Warning on its Namespace.
	auditQuiet(t, time.Now().Add(-time.Minute), first, 3*time.Second)
	since = time.Now()
	annotateMode(t, first, "endpointsandslice")
	annotateMode(t, other, "externalnam")
	for ns, value := range map[string]string{first: "endpointsandslice", other: "externalnam"} {
		eventually(t, "a Warning on Namespace "+ns+" naming the annotation", func() error {
			l, err := env.kube.CoreV1().Events("").List(bg(), metav1.ListOptions{
				FieldSelector: "involvedObject.kind=Namespace,involvedObject.name=" + ns + ",reason=" + routeaddress.InvalidModeAnnotation,
			})
			if err != nil {
				return err
			}
			for _, e := range l.Items {
				if e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, fmt.Sprintf("%q is not supported", value)) {
					t.Logf("Warning %s on Namespace %s: %s", e.Reason, ns, e.Message)
					return nil
				}
			}
			return fmt.Errorf("%d events", len(l.Items))
		})
	}
	setMode(t, netcfg.RouteAddressModeEndpointsAndSlices, netcfg.RouteAddressFallbackEnabled)
	time.Sleep(3 * time.Second)
	for _, ns := range []string{first, other} {
		if ws := auditWrites(t, since, ns); len(ws) != 0 {
			t.Errorf("with an annotation that is not a mode, %s was written to: %s", ns, summarizeWrites(ws))
		}
	}
	each(first, headless)
	each(other, external)
	t.Logf("annotations that are not a mode, then config-network endpointsandslices: %s still headless, %s still ExternalName, 0 writes", first, other)

	// The values fixed (removed): both namespaces take the cluster's mode.
	annotateMode(t, first, "")
	annotateMode(t, other, "")
	each(first, headless)
	each(other, headless)
	t.Logf("the annotations removed: both namespaces headless")

	// One namespace back.
	since = time.Now()
	annotateMode(t, other, string(netcfg.RouteAddressModeExternalName))
	each(other, external)
	if ws := auditWrites(t, since, first); len(ws) != 0 {
		t.Errorf("sending %s back wrote to %s: %s", other, first, summarizeWrites(ws))
	}
	each(first, headless)
	t.Logf("%s annotated externalname: back to ExternalName alone; %s still headless, 0 writes", other, first)
}

// annotateMode sets the route-address-mode annotation of Namespace ns
// ("" removes it).
func annotateMode(t *testing.T, ns, mode string) {
	t.Helper()
	var v any = mode
	if mode == "" {
		v = nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{netcfg.RouteAddressModeAnnotationKey: v}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.kube.CoreV1().Namespaces().Patch(bg(), ns, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// answers waits until name resolves to ip (through a CNAME or not).
func answers(t *testing.T, name, ip string) {
	t.Helper()
	eventually(t, "DNS "+name+" → "+ip, func() error {
		a, err := env.dns.Lookup(name)
		if err != nil {
			return err
		}
		if !slices.Equal(a.Addresses, []string{ip}) {
			return fmt.Errorf("got %s", a)
		}
		return nil
	})
}
