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
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/preview"
	"knative.dev/route-address/pkg/preview/cli"
	"knative.dev/route-address/test/cluster"
)

// TestPlanPredictsWrites: `kubectl route-address plan` run before a mode
// switch lists exactly the writes the controller then makes, as the
// apiserver's audit log records them.
func TestPlanPredictsWrites(t *testing.T) {
	needLocal(t)
	gw := namespace(t, "gw")
	const ip = "198.19.0.100"
	gatewayService(t, gw, "gateway", ip, 80)
	ns := namespace(t, "predict")
	setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	lbs := map[string][]netv1alpha1.LoadBalancerIngressStatus{
		"internal": {internalEntry(fmt.Sprintf(gwDomain, gw))},
		"ip":       {ipEntry(lbIPv4)},
		"domain":   {{Domain: "lb.example.com"}},
		"mesh":     {{MeshOnly: true}},
	}
	for name, lb := range lbs {
		route(t, ns, name, "tag")
		setLoadBalancer(t, ns, name, lb...)
	}
	waitShape(t, ns, "tag-internal", shape{Type: "ExternalName", ExternalName: fmt.Sprintf(gwDomain, gw)})
	waitShape(t, ns, "tag-ip", shape{Type: "ClusterIP", Headless: true, Endpoints: []string{lbIPv4}, Mirrored: 1})
	time.Sleep(2 * time.Second)

	for _, step := range []struct {
		mode netcfg.RouteAddressMode
		fb   netcfg.RouteAddressFallback
	}{{netcfg.RouteAddressModeEndpointsAndSlices, netcfg.RouteAddressFallbackEnabled}, {netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressFallbackDisabled}} {
		var out, errOut bytes.Buffer
		code := cli.Main(context.Background(), []string{
			"plan", "--kubeconfig", env.local.Kubeconfig,
			"--mode", string(step.mode), "--externalname-fallback", string(step.fb), "-n", ns, "-o", "json",
		}, &out, &errOut)
		if code != 0 {
			t.Fatalf("plan exited %d: %s", code, errOut.String())
		}
		var rep preview.Report
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		var predicted []string
		for _, r := range rep.Routes {
			for _, op := range r.Operations {
				predicted = append(predicted, fmt.Sprintf("%s %s %s", strings.ToLower(op.Verb), resourceOf(op.Kind), op.Name))
			}
		}
		sort.Strings(predicted)

		start := time.Now()
		setMode(t, step.mode, step.fb)
		eventually(t, "the predicted writes", func() error {
			got := controllerWrites(t, start, ns)
			if len(got) < len(predicted) {
				return fmt.Errorf("%d of %d writes so far", len(got), len(predicted))
			}
			return nil
		})
		auditQuiet(t, start, ns, 3*time.Second) // anything extra would show up now
		got := controllerWrites(t, start, ns)
		if d := cmp.Diff(predicted, got); d != "" {
			t.Errorf("→ %s: plan (-) vs audit log (+):\n%s", step.mode, d)
		}
		t.Logf("→ %s fallback=%s: predicted %d writes, the controller made %d: %s", step.mode, step.fb, len(predicted), len(got), strings.Join(got, "; "))
	}
}

func resourceOf(kind string) string {
	return map[string]string{"Service": "services", "Endpoints": "endpoints", "EndpointSlice": "endpointslices"}[kind]
}

// controllerWrites are the controller's writes in ns since since that took
// effect. One that did not (a conflict retried on a fresher read) is
// logged, not counted: the plan predicts what the controller changes.
func controllerWrites(t *testing.T, since time.Time, ns string) []string {
	t.Helper()
	var out []string
	took, not := cluster.Took(auditWrites(t, since, ns))
	for _, w := range took {
		if w.Agent() == "controller" {
			out = append(out, fmt.Sprintf("%s %s %s", w.Verb, w.ObjectRef.Resource, w.ObjectRef.Name))
		}
	}
	if len(not) > 0 {
		t.Logf("writes that did not take effect: %s", summarizeWrites(not))
	}
	sort.Strings(out)
	return out
}
