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
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"knative.dev/route-address/test/cluster"
)

// ruleFile is config/monitoring/prometheusrule.yaml's spec, the rule file
// Prometheus loads.
func ruleFile(t *testing.T) string {
	t.Helper()
	// go test runs in the package's directory.
	b, err := os.ReadFile(filepath.Join("..", "..", "config", "monitoring", "prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var pr struct {
		Kind string `json:"kind"`
		Spec struct {
			Groups []any `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(b, &pr); err != nil {
		t.Fatal(err)
	}
	if pr.Kind != "PrometheusRule" || len(pr.Spec.Groups) == 0 {
		t.Fatalf("config/monitoring/prometheusrule.yaml: kind %q with %d groups, want a PrometheusRule with groups", pr.Kind, len(pr.Spec.Groups))
	}
	out, err := yaml.Marshal(map[string]any{"groups": pr.Spec.Groups})
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "route-address.rules.yaml")
	if err := os.WriteFile(f, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// promtool checks the rule file and runs the unit tests of tests (promtool
// test rules' format, without rule_files) against it.
func promtool(t *testing.T, tests string) {
	t.Helper()
	rules := ruleFile(t)
	bin := cluster.Binary("promtool")
	if out, err := exec.Command(bin, "check", "rules", rules).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	f := filepath.Join(filepath.Dir(rules), "test.yaml")
	if err := os.WriteFile(f, []byte(fmt.Sprintf("rule_files: [%q]\nevaluation_interval: 1m\n%s", rules, tests)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "test", "rules", f).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules: %v\n%s\nthe tests:\n%s", err, out, tests)
	}
}

// TestPrometheusRule: the shipped rules, by promtool, on series written
// here: an intended ExternalName fallback never pages; a name held by a
// foreign object, a load balancer that cannot be resolved and failing
// writes page once they last; a switch whose names in progress stop going
// down pages after 30 minutes and one that goes down does not; the switch
// is not done while a replica has Routes it has not reconciled; a
// Namespace whose annotation is not a mode pages after 5 minutes, counted
// once however many replicas report it.
// TestMetricsFollowSwitch runs the recording rules on its own scrapes.
func TestPrometheusRule(t *testing.T) {
	promtool(t, `tests:
- interval: 1m
  input_series:
  - series: 'kn_routeaddress_names_count{kn_routeaddress_shape="headless",kn_routeaddress_mode="endpointslices"}'
    values: '95x130'
  - series: 'kn_routeaddress_names_count{kn_routeaddress_shape="externalname",kn_routeaddress_mode="endpointslices"}'
    values: '5x130'
  - series: 'kn_routeaddress_names_pending_count{kn_routeaddress_reason="ExternalNameFallback"}'
    values: '5x130'
  - series: 'kn_routeaddress_names_pending_count{kn_routeaddress_reason="NotReconciled"}'
    values: '0x130'
  - series: 'kn_routeaddress_routes_unreconciled_count{pod="controller-a"}'
    values: '3 0x129'
  - series: 'kn_routeaddress_routes_unreconciled_count{pod="controller-b"}'
    values: '0x130'
  alert_rule_test:
  - eval_time: 120m
    alertname: RouteAddressNameNotOwned
  - eval_time: 120m
    alertname: RouteAddressSwitchStalled
  promql_expr_test:
  - expr: knative_routeaddress:switch_done
    eval_time: 0m
    exp_samples: [{labels: 'knative_routeaddress:switch_done', value: 0}]
  - expr: knative_routeaddress:switch_done
    eval_time: 120m
    exp_samples: [{labels: 'knative_routeaddress:switch_done', value: 1}]
  - expr: knative_routeaddress:switch_progress:ratio
    eval_time: 120m
    exp_samples: [{labels: 'knative_routeaddress:switch_progress:ratio', value: 1}]
- interval: 1m
  input_series:
  - series: 'kn_routeaddress_names_pending_count{kn_routeaddress_reason="NotOwned"}'
    values: '1x30'
  - series: 'kn_routeaddress_names_pending_count{kn_routeaddress_reason="LoadBalancerUnresolvable"}'
    values: '0 2x30'
  - series: 'kn_routeaddress_writes_total{kn_routeaddress_kind="EndpointSlice",kn_routeaddress_verb="create",kn_routeaddress_result="error"}'
    values: '0+3x30'
  alert_rule_test:
  - eval_time: 10m
    alertname: RouteAddressNameNotOwned
  - eval_time: 16m
    alertname: RouteAddressNameNotOwned
    exp_alerts: [{exp_labels: {severity: warning}, exp_annotations: {summary: "1 Route names are held by objects their Routes do not control", description: "kubectl route-address status -A lists them; docs/troubleshooting.md, NotOwned, says what to do."}}]
  - eval_time: 17m
    alertname: RouteAddressLoadBalancerUnresolvable
    exp_alerts: [{exp_labels: {severity: warning}, exp_annotations: {summary: "2 Route names have a load balancer route-address cannot resolve", description: "The Routes carry a Warning event with the reason; docs/troubleshooting.md says what each means."}}]
  - eval_time: 5m
    alertname: RouteAddressWritesFailing
  - eval_time: 15m
    alertname: RouteAddressWritesFailing
    exp_alerts: [{exp_labels: {severity: warning}, exp_annotations: {summary: "route-address's writes of Services, Endpoints or EndpointSlices are failing", description: "The Routes carry CreationFailed, UpdateFailed or DeleteFailed Warnings; the controller's log has each error."}}]
- interval: 1m
  input_series:
  - series: 'kn_routeaddress_names_count{kn_routeaddress_shape="headless",kn_routeaddress_mode="endpointslices"}'
    values: '0+2x50 100x100'
  - series: 'kn_routeaddress_names_pending_count{kn_routeaddress_reason="NotReconciled"}'
    values: '100-2x50 0x100'
  - series: 'kn_routeaddress_names_pending_count{kn_routeaddress_reason="WriteFailed"}'
    values: '0x50 7x100'
  - series: 'kn_routeaddress_routes_unreconciled_count'
    values: '0x150'
  alert_rule_test:
  - eval_time: 40m
    alertname: RouteAddressSwitchStalled
  - eval_time: 100m
    alertname: RouteAddressSwitchStalled
  - eval_time: 112m
    alertname: RouteAddressSwitchStalled
    exp_alerts: [{exp_labels: {severity: warning}, exp_annotations: {summary: "7 Route names have been in progress for 30 minutes without fewer left", description: "kubectl route-address status --watch -A shows what each waits for; docs/troubleshooting.md, Metrics."}}]
- interval: 1m
  input_series:
  - series: 'kn_routeaddress_namespaces_invalid_count{pod="controller-a"}'
    values: '0 2x20 0x10'
  - series: 'kn_routeaddress_namespaces_invalid_count{pod="controller-b"}'
    values: '0 2x20 0x10'
  alert_rule_test:
  - eval_time: 4m
    alertname: RouteAddressInvalidModeAnnotation
  - eval_time: 10m
    alertname: RouteAddressInvalidModeAnnotation
    exp_alerts: [{exp_labels: {severity: warning}, exp_annotations: {summary: "2 Namespaces have a route-address-mode annotation that is not a mode: their Routes' names are held as they are", description: "kubectl route-address status -A lists them with their values; docs/troubleshooting.md, InvalidModeAnnotation, says what to do."}}]
  - eval_time: 25m
    alertname: RouteAddressInvalidModeAnnotation
`)
}

// ruleTest is a promtool unit test of the recording rules over scrapes
// taken a minute apart: switch_done and the progress ratio at each, as
// the scrape's own figures say they should be.
func ruleTest(scrapes []scraped) string {
	series := map[string][]string{}
	for i, s := range scrapes {
		for _, line := range s {
			j := strings.LastIndexByte(line, ' ')
			name := line[:j]
			if series[name] == nil {
				series[name] = make([]string, len(scrapes))
				// A series a scrape lacks is gone, as Prometheus marks it:
				// without the marker its last value would count for 5
				// minutes more.
				for k := range series[name] {
					series[name][k] = "stale"
				}
			}
			series[name][i] = line[j+1:]
		}
	}
	names := make([]string, 0, len(series))
	for n := range series {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("tests:\n- interval: 1m\n  input_series:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  - series: '%s'\n    values: '%s'\n", n, strings.Join(series[n], " "))
	}
	b.WriteString("  promql_expr_test:\n")
	for i, s := range scrapes {
		inProgress := s.sum(`kn_routeaddress_names_pending_count{`, `kn_routeaddress_reason="NotReconciled"`) +
			s.sum(`kn_routeaddress_names_pending_count{`, `kn_routeaddress_reason="WaitingForMirroring"`) +
			s.sum(`kn_routeaddress_names_pending_count{`, `kn_routeaddress_reason="WriteFailed"`) +
			s.sum(`kn_routeaddress_names_pending_count{`, `kn_routeaddress_reason="WaitingForRouteReconciler"`)
		left := inProgress + s.sum(`kn_routeaddress_routes_unreconciled_count{`)
		done := 0
		if left == 0 {
			done = 1
		}
		ratio := 1 - inProgress/max(s.sum(`kn_routeaddress_names_count{`), 1)
		fmt.Fprintf(&b, "  - expr: knative_routeaddress:switch_done\n    eval_time: %dm\n    exp_samples: [{labels: 'knative_routeaddress:switch_done', value: %d}]\n", i, done)
		fmt.Fprintf(&b, "  - expr: knative_routeaddress:switch_progress:ratio\n    eval_time: %dm\n    exp_samples: [{labels: 'knative_routeaddress:switch_progress:ratio', value: %g}]\n", i, ratio)
	}
	return b.String()
}
