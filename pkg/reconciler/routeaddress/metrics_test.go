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
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	clocktesting "k8s.io/utils/clock/testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"knative.dev/pkg/hash"
	"knative.dev/pkg/reconciler"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
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
	c, d := k8stypes.NamespacedName{Namespace: "staged", Name: "c"}, k8stypes.NamespacedName{Namespace: "typo", Name: "d"}
	external := []nameState{{shape: resources.ServiceExternalName}}

	if got := scrape(t, reader); len(got) != 0 {
		t.Errorf("before the configuration is read: %q, want nothing", got)
	}
	m.configured(en)
	m.reconciled(a, en, en, external, 0)
	m.reconciled(b, en, en, []nameState{{shape: resources.ServiceExternalName}, {shape: resources.ServiceExternalName}}, 0)
	steps := []struct {
		name string
		do   func()
		want []string
	}{{
		name: "the mode changes: every name is not reconciled",
		do:   func() { m.configured(es); clock.SetTime(clock.Now().Add(30 * time.Second)) },
		want: []string{
			"kn.routeaddress.names.count{mode=externalname,shape=externalname} 3",
			"kn.routeaddress.names.pending.count{reason=NotReconciled} 3",
		},
	}, {
		name: "a waits for mirroring",
		do: func() {
			m.reconciled(a, es, es, []nameState{{shape: resources.ServiceExternalName, pending: PendingMirroring}}, 0)
		},
		want: []string{
			"kn.routeaddress.names.count{mode=endpointslices,shape=externalname} 1",
			"kn.routeaddress.names.count{mode=externalname,shape=externalname} 2",
			"kn.routeaddress.names.pending.count{reason=NotReconciled} 2",
			"kn.routeaddress.names.pending.count{reason=WaitingForMirroring} 1",
		},
	}, {
		name: "b is headless, one name held by a foreign Service",
		do: func() {
			m.reconciled(b, es, es, []nameState{{shape: resources.ServiceHeadless}, {shape: resources.ServiceClusterIP, pending: PendingNotOwned}}, 0)
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
		do:   func() { m.reconciled(a, es, es, []nameState{{shape: resources.ServiceHeadless}}, 0) },
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
		do:   func() { m.configured(es); m.reconciled(a, es, es, []nameState{{shape: resources.ServiceHeadless}}, 0) },
		want: []string{
			"kn.routeaddress.names.count{mode=endpointslices,shape=headless} 1",
			"kn.routeaddress.switch.duration{mode=endpointslices} count=1 sum=90",
		},
	}, {
		name: "c is in a Namespace annotated endpointsandslices: its names carry that mode",
		do: func() {
			m.reconciled(c, es, netcfg.RouteAddressModeEndpointsAndSlices, []nameState{{shape: resources.ServiceHeadless}}, 0)
		},
		want: []string{
			"kn.routeaddress.names.count{mode=endpointsandslices,shape=headless} 1",
			"kn.routeaddress.names.count{mode=endpointslices,shape=headless} 1",
			"kn.routeaddress.switch.duration{mode=endpointslices} count=1 sum=90",
		},
	}, {
		name: "d is in a Namespace whose annotation is not a mode: held, and the Namespace counted",
		do: func() {
			m.invalid = func() (int, error) { return 1, nil }
			m.reconciled(d, es, es, []nameState{{shape: resources.ServiceExternalName, pending: InvalidModeAnnotation}}, 0)
		},
		want: []string{
			"kn.routeaddress.names.count{mode=endpointsandslices,shape=headless} 1",
			"kn.routeaddress.names.count{mode=endpointslices,shape=externalname} 1",
			"kn.routeaddress.names.count{mode=endpointslices,shape=headless} 1",
			"kn.routeaddress.names.pending.count{reason=InvalidModeAnnotation} 1",
			"kn.routeaddress.namespaces.invalid.count{} 1",
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

// TestMetricsDemoted: two replicas lead two buckets each; the first then
// leads all four, as a replica does that took over from one paused past its
// lease, and the paused one, woken, loses its two. Summed over both
// replicas, the gauges count every name once at each step.
func TestMetricsDemoted(t *testing.T) {
	buckets := hash.NewBucketSet(sets.New("b0", "b1", "b2", "b3")).Buckets()
	readers := []*sdkmetric.ManualReader{sdkmetric.NewManualReader(), sdkmetric.NewManualReader()}
	ms := []*metrics{
		newMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(readers[0]))),
		newMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(readers[1]))),
	}
	es := netcfg.RouteAddressModeEndpointSlices
	leads := func(m *metrics, bs ...reconciler.Bucket) {
		for i := range 40 {
			key := k8stypes.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("r%d", i)}
			if slices.ContainsFunc(bs, func(b reconciler.Bucket) bool { return b.Has(key) }) {
				m.reconciled(key, es, es, []nameState{{shape: resources.ServiceHeadless}, {shape: resources.ServiceHeadless}}, 0)
			}
		}
	}
	total := func() int {
		n := 0
		for _, r := range readers {
			for _, l := range scrape(t, r) {
				var v int
				if _, err := fmt.Sscanf(l[strings.LastIndex(l, " ")+1:], "%d", &v); err == nil && strings.HasPrefix(l, "kn.routeaddress.names.count{") {
					n += v
				}
			}
		}
		return n
	}
	for _, m := range ms {
		m.configured(es)
	}
	leads(ms[0], buckets[0], buckets[1])
	leads(ms[1], buckets[2], buckets[3])
	if got := total(); got != 80 {
		t.Errorf("two buckets each: %d names summed over the replicas, want 80", got)
	}
	// Replica 1 is paused; replica 0 takes its buckets and reconciles
	// their Routes; replica 1 wakes and loses them.
	leads(ms[0], buckets[2], buckets[3])
	if got := total(); got != 120 {
		t.Errorf("before the paused replica notices: %d names, want 120 (its last count stands until it is demoted)", got)
	}
	ms[1].demoted(buckets[2])
	ms[1].demoted(buckets[3])
	if got := total(); got != 80 {
		t.Errorf("after the demotion: %d names summed over the replicas, want 80", got)
	}
	if got := nonZero(scrape(t, readers[1])); len(got) != 0 {
		t.Errorf("the demoted replica reports %q, want zeros", got)
	}
}

// TestMetricsUnreconciled: the Routes of the buckets a replica takes count
// as unreconciled until it reconciles them, so that "nothing in progress"
// is not true before it has; a deleted Route or a lost bucket takes them
// out.
func TestMetricsUnreconciled(t *testing.T) {
	buckets := hash.NewBucketSet(sets.New("b0", "b1")).Buckets()
	reader := sdkmetric.NewManualReader()
	m := newMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	es := netcfg.RouteAddressModeEndpointSlices
	m.configured(es)
	unreconciled := func() string {
		for _, l := range scrape(t, reader) {
			if strings.HasPrefix(l, "kn.routeaddress.routes.unreconciled.count{") {
				return l[strings.LastIndex(l, " ")+1:]
			}
		}
		return "absent"
	}
	var keys, in0, in1 []k8stypes.NamespacedName
	for i := range 40 {
		k := k8stypes.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("r%d", i)}
		keys = append(keys, k)
		if buckets[0].Has(k) {
			in0 = append(in0, k)
		} else {
			in1 = append(in1, k)
		}
	}
	// As the generated reconciler promotes: the signal, then every Route
	// through the filter.
	promote := func(b reconciler.Bucket) {
		m.promoted(b)
		for _, k := range keys {
			if !m.promoting(&metav1.ObjectMeta{Namespace: k.Namespace, Name: k.Name}) {
				t.Errorf("the filter left %v out", k)
			}
		}
	}
	if got := unreconciled(); got != "0" {
		t.Errorf("before any bucket: %s unreconciled, want 0", got)
	}
	promote(buckets[0])
	if got, want := unreconciled(), strconv.Itoa(len(in0)); got != want {
		t.Errorf("bucket 0 taken: %s unreconciled, want %s", got, want)
	}
	for _, k := range in0[1:] {
		m.reconciled(k, es, es, []nameState{{shape: resources.ServiceHeadless}}, 0)
	}
	if got := unreconciled(); got != "1" {
		t.Errorf("all but one reconciled: %s unreconciled, want 1", got)
	}
	// Taking bucket 1 counts its Routes, not bucket 0's reconciled ones.
	promote(buckets[1])
	if got, want := unreconciled(), strconv.Itoa(1+len(in1)); got != want {
		t.Errorf("bucket 1 taken too: %s unreconciled, want %s", got, want)
	}
	m.demoted(buckets[1])
	if got := unreconciled(); got != "1" {
		t.Errorf("bucket 1 lost: %s unreconciled, want 1 (bucket 0's last)", got)
	}
	// A Route of bucket 0 created since counts when the next promotion
	// lists it: bucket 0 is still led.
	for i := 0; ; i++ {
		if k := (k8stypes.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("new%d", i)}); buckets[0].Has(k) {
			keys = append(keys, k)
			break
		}
	}
	promote(buckets[1])
	if got, want := unreconciled(), strconv.Itoa(2+len(in1)); got != want {
		t.Errorf("bucket 1 taken again: %s unreconciled, want %s", got, want)
	}
	m.forget(in0[0])
	if got, want := unreconciled(), strconv.Itoa(1+len(in1)); got != want {
		t.Errorf("a Route deleted: %s unreconciled, want %s", got, want)
	}
}

// TestMetricsNil: a Reconciler built without metrics records nothing and
// does not fail.
func TestMetricsNil(t *testing.T) {
	var m *metrics
	m.configured(netcfg.RouteAddressModeEndpoints)
	m.reconciled(k8stypes.NamespacedName{Name: "a"}, netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressModeEndpoints, nil, 0)
	m.forget(k8stypes.NamespacedName{Name: "a"})
	m.demoted(reconciler.UniversalBucket())
	m.promoted(reconciler.UniversalBucket())
	m.promoting(&metav1.ObjectMeta{Name: "a"})
	m.wrote(context.Background(), plan.Op{}, nil)
}

// TestMetricsForeign counts the foreign slices under the names of the
// Routes last reconciled, and forgets those of a deleted Route.
func TestMetricsForeign(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	m := newMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	es := netcfg.RouteAddressModeEndpointSlices
	a, b := k8stypes.NamespacedName{Namespace: "ns", Name: "a"}, k8stypes.NamespacedName{Namespace: "ns", Name: "b"}
	headless := []nameState{{shape: resources.ServiceHeadless}}
	foreign := func() string {
		for _, l := range scrape(t, reader) {
			if v, ok := strings.CutPrefix(l, "kn.routeaddress.endpointslices.foreign.count{} "); ok {
				return v
			}
		}
		return "absent"
	}
	m.configured(es)
	for _, step := range []struct {
		name string
		do   func()
		want string
	}{
		{"none yet", func() {}, "0"},
		{"a has two", func() { m.reconciled(a, es, es, headless, 2) }, "2"},
		{"b has one", func() { m.reconciled(b, es, es, headless, 1) }, "3"},
		{"a's are gone", func() { m.reconciled(a, es, es, headless, 0) }, "1"},
		{"b is deleted", func() { m.forget(b) }, "0"},
	} {
		step.do()
		if got := foreign(); got != step.want {
			t.Errorf("%s: kn.routeaddress.endpointslices.foreign.count = %s, want %s", step.name, got, step.want)
		}
	}
}
