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

package routeaddress

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	k8stypes "k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
)

// scrape collects reader's data points as "name{attribute values} value"
// lines, sorted; histograms as their count.
func scrape(t *testing.T, reader *sdkmetric.ManualReader) []string {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal("Collect:", err)
	}
	var out []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					out = append(out, fmt.Sprintf("%s{%s} %d", m.Name, values(p.Attributes.ToSlice()), p.Value))
				}
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out = append(out, fmt.Sprintf("%s{%s} %d", m.Name, values(p.Attributes.ToSlice()), p.Value))
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out = append(out, fmt.Sprintf("%s{%s} count=%d sum=%g", m.Name, values(p.Attributes.ToSlice()), p.Count, p.Sum))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// values is "key=value,…" of kvs, each key without its
// "kn.routeaddress." prefix.
func values(kvs []attribute.KeyValue) string {
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		out[i] = strings.TrimPrefix(string(kv.Key), "kn.routeaddress.") + "=" + kv.Value.String()
	}
	return strings.Join(out, ",")
}

// nonZero keeps the lines whose value is not 0.
func nonZero(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !strings.HasSuffix(l, " 0") {
			out = append(out, l)
		}
	}
	return out
}

// TestMetricsSwitch: a switch's names and its duration, from the mode's
// change until no name is left that the controller is working on.
func TestMetricsSwitch(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	m := newMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	clock := clocktesting.NewFakePassiveClock(time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC))
	m.clock = clock
	en, es := netcfg.RouteAddressModeExternalName, netcfg.RouteAddressModeEndpointSlices
	a, b := k8stypes.NamespacedName{Namespace: "ns", Name: "a"}, k8stypes.NamespacedName{Namespace: "ns", Name: "b"}
	external := []nameState{{shape: ShapeExternalName}}

	if got := scrape(t, reader); len(got) != 0 {
		t.Errorf("before the configuration is read: %q, want nothing", got)
	}
	m.configured(en)
	m.reconciled(a, en, external)
	m.reconciled(b, en, []nameState{{shape: ShapeExternalName}, {shape: ShapeExternalName}})
	steps := []struct {
		name string
		do   func()
		want []string
	}{{
		name: "the mode changes: every name is not reconciled",
		do:   func() { m.configured(es); clock.SetTime(clock.Now().Add(30 * time.Second)) },
		want: []string{
			"kn.routeaddress.names.count{mode=endpointslices,shape=externalname} 3",
			"kn.routeaddress.names.pending.count{reason=NotReconciled} 3",
		},
	}, {
		name: "a waits for mirroring",
		do:   func() { m.reconciled(a, es, []nameState{{shape: ShapeExternalName, pending: PendingMirroring}}) },
		want: []string{
			"kn.routeaddress.names.count{mode=endpointslices,shape=externalname} 3",
			"kn.routeaddress.names.pending.count{reason=NotReconciled} 2",
			"kn.routeaddress.names.pending.count{reason=WaitingForMirroring} 1",
		},
	}, {
		name: "b is headless, one name held by a foreign Service",
		do: func() {
			m.reconciled(b, es, []nameState{{shape: ShapeHeadless}, {shape: ShapeClusterIP, pending: PendingNotOwned}})
			clock.SetTime(clock.Now().Add(60 * time.Second))
		},
		want: []string{
			"kn.routeaddress.names.count{mode=endpointslices,shape=clusterip} 1",
			"kn.routeaddress.names.count{mode=endpointslices,shape=externalname} 1",
			"kn.routeaddress.names.count{mode=endpointslices,shape=headless} 1",
			"kn.routeaddress.names.pending.count{reason=NotOwned} 1",
			"kn.routeaddress.names.pending.count{reason=WaitingForMirroring} 1",
		},
	}, {
		name: "a is headless: the switch is over after 90 s (the foreign Service waits for a person)",
		do:   func() { m.reconciled(a, es, []nameState{{shape: ShapeHeadless}}) },
		want: []string{
			"kn.routeaddress.names.count{mode=endpointslices,shape=clusterip} 1",
			"kn.routeaddress.names.count{mode=endpointslices,shape=headless} 2",
			"kn.routeaddress.names.pending.count{reason=NotOwned} 1",
			"kn.routeaddress.switch.duration{mode=endpointslices} count=1 sum=90",
		},
	}, {
		name: "b is deleted",
		do:   func() { m.forget(b) },
		want: []string{
			"kn.routeaddress.names.count{mode=endpointslices,shape=headless} 1",
			"kn.routeaddress.switch.duration{mode=endpointslices} count=1 sum=90",
		},
	}, {
		name: "the same mode stored again starts no switch",
		do:   func() { m.configured(es); m.reconciled(a, es, []nameState{{shape: ShapeHeadless}}) },
		want: []string{
			"kn.routeaddress.names.count{mode=endpointslices,shape=headless} 1",
			"kn.routeaddress.switch.duration{mode=endpointslices} count=1 sum=90",
		},
	}}
	for _, s := range steps {
		s.do()
		if diff := cmp.Diff(s.want, nonZero(scrape(t, reader))); diff != "" {
			t.Errorf("%s: scrape (-want, +got): %s", s.name, diff)
		}
	}
}

// TestMetricsNil: a Reconciler built without metrics records nothing and
// does not fail.
func TestMetricsNil(t *testing.T) {
	var m *metrics
	m.configured(netcfg.RouteAddressModeEndpoints)
	m.reconciled(k8stypes.NamespacedName{Name: "a"}, netcfg.RouteAddressModeEndpoints, nil)
	m.forget(k8stypes.NamespacedName{Name: "a"})
	m.wrote(context.Background(), plan.Op{}, nil)
}
