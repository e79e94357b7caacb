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
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress"
	"knative.dev/route-address/test/cluster"
)

// TestMetricsFollowSwitch: the controller's Prometheus endpoint, enabled
// by config-observability as an operator would, scraped before, during and
// after a switch of 150 Routes (300 names) from ExternalName to Endpoints
// at serving's client limits: every name ExternalName, then some headless
// and some not reconciled or waiting for kube-controller-manager's
// mirroring, then every name headless and nothing pending, one switch's
// duration recorded, and as many writes counted as the apiserver's audit
// log shows. The shipped recording rules, run by promtool on the three
// scrapes, say the switch is done before and after it and not during.
func TestMetricsFollowSwitch(t *testing.T) {
	needLocal(t)
	const routes, names = 150, 300
	setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	noRouteLeft(t) // the controller started below counts every Route of the cluster
	t.Cleanup(restartAfter(t))
	endpoint := enablePrometheus(t)
	stopController()
	if err := startController(cluster.Limits(50, 50)...); err != nil {
		t.Fatal(err)
	}

	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", "198.19.0.120", 80)
	ns := namespace(t, "metrics")
	gatewayRoutes(t, ns, gw, routes)
	var before scraped
	eventually(t, "every name ExternalName in the metrics", func() error {
		s, err := scrape(endpoint)
		if err != nil {
			return err
		}
		before = s
		if n := s.names("externalname"); n != names {
			return fmt.Errorf("%d names ExternalName, want %d", n, names)
		}
		return nil
	})
	t.Logf("before the switch:\n%s", before)
	if got := before.pending(); got != 0 {
		t.Errorf("before the switch %d names pending, want 0", got)
	}

	start := time.Now()
	setMode(t, netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressFallbackEnabled)
	var during, after scraped
	eventuallyWithin(t, 3*time.Minute, "every name headless and nothing pending", func() error {
		s, err := scrape(endpoint)
		if err != nil {
			return err
		}
		if h := s.names("headless"); during == nil && h > 0 && h < names {
			during = s
		}
		after = s
		if h, p := s.names("headless"), s.pending(); h != names || p != 0 {
			return fmt.Errorf("%d of %d names headless, %d pending", h, names, p)
		}
		return nil
	})
	if during == nil {
		t.Error("no scrape caught the switch in progress (some names headless, some not)")
	} else {
		t.Logf("during the switch:\n%s", during)
		if p := during.pending(); p == 0 {
			t.Error("during the switch no name is pending")
		}
	}
	t.Logf("after the switch:\n%s", after)
	if during != nil {
		// The shipped recording rules on these scrapes, a minute apart.
		promtool(t, ruleTest([]scraped{before, during, after}))
	}
	if n := after.sum(`kn_routeaddress_switch_duration_seconds_count{`, `kn_routeaddress_mode="endpoints"`); n != 1 {
		t.Errorf("%v switches to endpoints recorded, want 1", n)
	}
	if d, limit := after.sum(`kn_routeaddress_switch_duration_seconds_sum{`, `kn_routeaddress_mode="endpoints"`), time.Since(start).Seconds(); d <= 0 || d > limit {
		t.Errorf("the switch took %vs by the metric, want more than 0 and at most the %.1fs the test waited", d, limit)
	}

	auditQuiet(t, start, ns, 3*time.Second)
	final, err := scrape(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	// Our creates and updates name routeaddress's field manager (the
	// route reconciler, in the same binary, may still update a Service as
	// the switch starts); a delete has none, and the switch makes none.
	took, not := cluster.Took(auditWrites(t, start, ns))
	ours := func(ws []cluster.AuditEvent) int {
		return len(slices.DeleteFunc(slices.Clone(ws), func(w cluster.AuditEvent) bool {
			return !strings.Contains(w.RequestURI, "fieldManager="+routeaddress.AgentName) && (w.Verb != "delete" || w.Agent() != "controller")
		}))
	}
	writes := func(s scraped, parts ...string) float64 {
		return s.sum(append([]string{`kn_routeaddress_writes_total{`}, parts...)...)
	}
	succeeded := writes(final, `kn_routeaddress_result="success"`) - writes(before, `kn_routeaddress_result="success"`)
	failed := writes(final) - writes(before) - succeeded
	t.Logf("writes counted: %v took effect, %v refused; the audit log: %s", succeeded, failed, summarizeWrites(append(took, not...)))
	if int(succeeded) != ours(took) || int(failed) != ours(not) {
		t.Errorf("the metric counts %v writes that took effect and %v refused, the audit log %d and %d by %s", succeeded, failed, ours(took), ours(not), routeaddress.AgentName)
	}
}

// enablePrometheus makes config-observability ask for the Prometheus
// exporter on a free loopback port, as an operator would, and puts it back
// as it was when the test ends; the controller reads it when it starts. It
// returns the address the metrics are served at.
func enablePrometheus(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cms := env.kube.CoreV1().ConfigMaps(cluster.SystemNamespace)
	cm, err := cms.Get(bg(), "config-observability", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	was := cm.Data
	cm.Data = map[string]string{"metrics-protocol": "prometheus", "metrics-endpoint": addr}
	if _, err := cms.Update(bg(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { restoreObservability(t, was) })
	return "http://" + addr + "/metrics"
}

// restoreObservability puts config-observability's data back.
func restoreObservability(t *testing.T, data map[string]string) {
	cms := env.kube.CoreV1().ConfigMaps(cluster.SystemNamespace)
	cm, err := cms.Get(bg(), "config-observability", metav1.GetOptions{})
	if err != nil {
		t.Error(err)
		return
	}
	cm.Data = data
	if _, err := cms.Update(bg(), cm, metav1.UpdateOptions{}); err != nil {
		t.Error(err)
	}
}

// restartAfter returns a cleanup that starts the suite's controller again
// as the other tests expect it; registered before enablePrometheus, it runs
// after config-observability is put back (cleanups run last-registered
// first).
func restartAfter(t *testing.T) func() {
	return func() {
		stopController()
		if err := startController(); err != nil {
			t.Error(err)
		}
	}
}

// scraped is the route-address lines of a scrape of the Prometheus text
// format: "name{labels} value".
type scraped []string

func scrape(url string) (scraped, error) {
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	var s scraped
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "kn_routeaddress_") {
			s = append(s, line)
		}
	}
	return s, nil
}

func (s scraped) String() string { return strings.Join(s, "\n") }

// sum adds the values of the lines that contain every one of parts.
func (s scraped) sum(parts ...string) float64 {
	total := 0.0
	for _, line := range s {
		if !containsAll(line, parts) {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err == nil {
			total += v
		}
	}
	return total
}

// names is the number of names of a shape.
func (s scraped) names(shape string) int {
	return int(s.sum(`kn_routeaddress_names_count{`, fmt.Sprintf(`kn_routeaddress_shape=%q`, shape)))
}

// pending is the number of names pending for any reason.
func (s scraped) pending() int { return int(s.sum(`kn_routeaddress_names_pending_count{`)) }

func containsAll(line string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(line, p) {
			return false
		}
	}
	return true
}
