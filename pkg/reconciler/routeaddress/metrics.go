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
	"slices"
	"strings"
	"sync"
	"time"

	apierrs "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	otelmetric "go.opentelemetry.io/otel/metric"

	"knative.dev/pkg/observability/attributekey"
	"knative.dev/pkg/reconciler"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources"
)

const scopeName = "knative.dev/serving/pkg/reconciler/routeaddress"

// The metrics' attributes. Each takes a handful of values: none names a
// Route.
var (
	shapeKey  = attributekey.String("kn.routeaddress.shape")
	modeKey   = attributekey.String("kn.routeaddress.mode")
	reasonKey = attributekey.String("kn.routeaddress.reason")
	kindKey   = attributekey.String("kn.routeaddress.kind")
	verbKey   = attributekey.String("kn.routeaddress.verb")
	resultKey = attributekey.String("kn.routeaddress.result")
)

var (
	shapes = []resources.ServiceShape{resources.ServiceAbsent, resources.ServiceExternalName, resources.ServiceHeadless, resources.ServiceClusterIP}
	// reasons are Pending's reasons, and those of the names the
	// controller has yet to reconcile in the configured mode or whose
	// writes failed.
	reasons = []string{
		PendingNotReconciled, PendingMirroring, PendingWriteFailed, PendingRouteReconciler,
		PendingNotOwned, PendingNoLoadBalancer, PendingFallback, PendingUnresolvable, InvalidModeAnnotation,
	}
	// switchBuckets are the bounds, in seconds, of a switch's duration.
	switchBuckets = []float64{1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200}
)

// inProgress reports whether a name pending for reason is one the
// controller is still working on: a switch is over when none is left. The
// others wait for something only a person or the ingress can change.
func inProgress(reason string) bool {
	switch reason {
	case PendingNotReconciled, PendingMirroring, PendingWriteFailed, PendingRouteReconciler:
		return true
	}
	return false
}

// nameState is one of a Route's names as the Route's last reconcile left
// it: the shape of its Service, and why it does not have the shape its
// mode asks for ("" when it has it).
type nameState struct {
	shape   resources.ServiceShape
	pending string
}

// routeState is a Route's names as its last reconcile left them: the
// configured mode then, the mode its names had (its Namespace's), and how
// many EndpointSlices other controllers manage under them.
type routeState struct {
	configured, mode netcfg.RouteAddressMode
	names            []nameState
	foreign          int64
}

// shapeMode is a label set of the names gauge: a Service shape, and the
// mode of the names counted.
type shapeMode struct {
	shape resources.ServiceShape
	mode  netcfg.RouteAddressMode
}

// metrics are the reconciler's instruments and the state their gauges
// read: every Route's names as its last reconcile left them (a Route is
// forgotten once deleted), and counts of them kept as they change, so
// that a scrape and a reconcile cost the same however many Routes there
// are. Under leader election each replica counts the Routes of the
// buckets it leads that it has reconciled since it took them: a Route is
// forgotten when its bucket is lost.
type metrics struct {
	clock clock.PassiveClock

	mu sync.Mutex
	// mode is the configured mode, set once the configuration is read.
	mode netcfg.RouteAddressMode
	set  bool
	// since is when mode last changed while this process ran; zero when
	// no switch is in progress.
	since   time.Time
	routes  map[types.NamespacedName]routeState
	shapes  map[shapeMode]int64
	pending map[string]int64
	foreign int64
	// led are the buckets this replica leads; unreconciled the Routes of
	// those buckets that it has not reconciled since it took them (as
	// they were listed then).
	led          []reconciler.Bucket
	unreconciled map[types.NamespacedName]struct{}

	names, pendingNames, unreconciledRoutes otelmetric.Int64ObservableGauge
	foreignSlices                           otelmetric.Int64ObservableGauge
	invalidNamespaces                       otelmetric.Int64ObservableGauge
	// invalid counts the Namespaces whose route-address-mode annotation
	// is not a mode; nil: not observed.
	invalid        func() (int, error)
	writes         otelmetric.Int64Counter
	switchDuration otelmetric.Float64Histogram
}

// newMetrics registers the instruments with mp (the global provider when
// nil), which sharedmain sets up from config-observability.
func newMetrics(mp otelmetric.MeterProvider) *metrics {
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	meter := mp.Meter(scopeName)
	m := &metrics{clock: clock.RealClock{}, routes: map[types.NamespacedName]routeState{}, unreconciled: map[types.NamespacedName]struct{}{}}
	m.recount()
	m.names = must(meter.Int64ObservableGauge("kn.routeaddress.names.count",
		otelmetric.WithDescription("Number of Routes' cluster-local names by the shape of their Service, and the route-address-mode they have (their Namespace's)"),
		otelmetric.WithUnit("{name}")))
	m.pendingNames = must(meter.Int64ObservableGauge("kn.routeaddress.names.pending.count",
		otelmetric.WithDescription("Number of Routes' cluster-local names that do not have the shape the configured route-address-mode asks for, by why"),
		otelmetric.WithUnit("{name}")))
	m.unreconciledRoutes = must(meter.Int64ObservableGauge("kn.routeaddress.routes.unreconciled.count",
		otelmetric.WithDescription("Number of Routes this replica leads that it has not reconciled since it took them (since it started, or took their bucket)"),
		otelmetric.WithUnit("{route}")))
	m.foreignSlices = must(meter.Int64ObservableGauge("kn.routeaddress.endpointslices.foreign.count",
		otelmetric.WithDescription("Number of EndpointSlices another controller manages under Routes' cluster-local names: left alone, they add their addresses to the names"),
		otelmetric.WithUnit("{endpointslice}")))
	m.invalidNamespaces = must(meter.Int64ObservableGauge("kn.routeaddress.namespaces.invalid.count",
		otelmetric.WithDescription("Number of Namespaces whose route-address-mode annotation is not a mode: their Routes' names are held as they are"),
		otelmetric.WithUnit("{namespace}")))
	m.writes = must(meter.Int64Counter("kn.routeaddress.writes",
		otelmetric.WithDescription("Number of writes of Routes' Services, Endpoints and EndpointSlices, by kind, verb and result"),
		otelmetric.WithUnit("{write}")))
	m.switchDuration = must(meter.Float64Histogram("kn.routeaddress.switch.duration",
		otelmetric.WithDescription("Time from a change of route-address-mode until no name is left that the controller is still working on"),
		otelmetric.WithUnit("s"),
		otelmetric.WithExplicitBucketBoundaries(switchBuckets...)))
	must(meter.RegisterCallback(m.observe, m.names, m.pendingNames, m.unreconciledRoutes, m.foreignSlices, m.invalidNamespaces))
	return m
}

func (m *metrics) observe(_ context.Context, o otelmetric.Observer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.set {
		return nil
	}
	for _, s := range shapes {
		// The configured mode's series are observed when zero too.
		if _, ok := m.shapes[shapeMode{s, m.mode}]; !ok {
			o.ObserveInt64(m.names, 0, otelmetric.WithAttributes(shapeKey.With(string(s)), modeKey.With(string(m.mode))))
		}
	}
	for k, n := range m.shapes {
		o.ObserveInt64(m.names, n, otelmetric.WithAttributes(shapeKey.With(string(k.shape)), modeKey.With(string(k.mode))))
	}
	for _, r := range reasons {
		o.ObserveInt64(m.pendingNames, m.pending[r], otelmetric.WithAttributes(reasonKey.With(r)))
	}
	o.ObserveInt64(m.unreconciledRoutes, int64(len(m.unreconciled)))
	o.ObserveInt64(m.foreignSlices, m.foreign)
	if m.invalid != nil {
		n, err := m.invalid()
		if err != nil {
			return err
		}
		o.ObserveInt64(m.invalidNamespaces, int64(n))
	}
	return nil
}

// promoted records that this replica now leads b: the generated
// reconciler then lists every Route (promoting) and enqueues those of b.
func (m *metrics) promoted(b reconciler.Bucket) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.led = append(m.led, b)
}

// promoting is the generated reconciler's filter of the Routes it lists on
// a promotion: a Route of a bucket this replica leads that it has not
// reconciled since it took the bucket counts as unreconciled until it is.
// Every Route passes.
func (m *metrics) promoting(obj interface{}) bool {
	if m == nil {
		return true
	}
	r, err := meta.Accessor(obj)
	if err != nil {
		return true
	}
	key := types.NamespacedName{Namespace: r.GetNamespace(), Name: r.GetName()}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.routes[key]; ok {
		return true
	}
	for _, b := range m.led {
		if b.Has(key) {
			m.unreconciled[key] = struct{}{}
			break
		}
	}
	return true
}

// configured records the configured mode; a change starts a switch.
func (m *metrics) configured(mode netcfg.RouteAddressMode) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.set && m.mode == mode {
		return
	}
	if m.set {
		m.since = m.clock.Now()
	}
	m.mode, m.set = mode, true
	m.recount()
	m.settle()
}

// reconciled records a Route's names as its reconcile left them, with the
// configured mode then, the mode of its Namespace and the number of
// foreign slices under them.
func (m *metrics) reconciled(key types.NamespacedName, configured, mode netcfg.RouteAddressMode, names []nameState, foreign int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.unreconciled, key)
	m.count(m.routes[key], -1)
	m.routes[key] = routeState{configured: configured, mode: mode, names: names, foreign: int64(foreign)}
	m.count(m.routes[key], 1)
	m.settle()
}

// demoted drops the Routes of a bucket this replica no longer leads: the
// replica that takes the bucket counts them, so that the gauges summed over
// the replicas count every name once.
func (m *metrics) demoted(b reconciler.Bucket) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.led = slices.DeleteFunc(m.led, func(l reconciler.Bucket) bool { return l.Name() == b.Name() })
	for key, r := range m.routes {
		if b.Has(key) {
			m.count(r, -1)
			delete(m.routes, key)
		}
	}
	for key := range m.unreconciled {
		if b.Has(key) {
			delete(m.unreconciled, key)
		}
	}
	m.settle()
}

// forget drops a deleted Route.
func (m *metrics) forget(key types.NamespacedName) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.unreconciled, key)
	m.count(m.routes[key], -1)
	delete(m.routes, key)
	m.settle()
}

// wrote counts one write (not a dry run) and its result.
func (m *metrics) wrote(ctx context.Context, op plan.Op, err error) {
	if m == nil {
		return
	}
	result := "success"
	switch {
	case apierrs.IsConflict(err):
		result = "conflict"
	case err != nil:
		result = "error"
	}
	m.writes.Add(ctx, 1, otelmetric.WithAttributeSet(attribute.NewSet(
		kindKey.With(string(op.Kind)), verbKey.With(strings.ToLower(string(op.Verb))), resultKey.With(result))))
}

// count adds a Route's names to the counts (sign 1) or takes them out
// (sign -1). A Route last reconciled under another configured mode than
// the current one counts as not reconciled.
func (m *metrics) count(r routeState, sign int64) {
	m.foreign += sign * r.foreign
	for _, n := range r.names {
		k := shapeMode{n.shape, r.mode}
		if m.shapes[k] += sign; m.shapes[k] == 0 {
			delete(m.shapes, k)
		}
		reason := n.pending
		if r.configured != m.mode {
			reason = PendingNotReconciled
		}
		if reason != "" {
			m.pending[reason] += sign
		}
	}
}

func (m *metrics) recount() {
	m.shapes, m.pending, m.foreign = map[shapeMode]int64{}, map[string]int64{}, 0
	for _, r := range m.routes {
		m.count(r, 1)
	}
}

// settle ends a switch in progress once no name is left that the
// controller is still working on, and records its duration.
func (m *metrics) settle() {
	if m.since.IsZero() {
		return
	}
	for r, n := range m.pending {
		if n > 0 && inProgress(r) {
			return
		}
	}
	m.switchDuration.Record(context.Background(), m.clock.Since(m.since).Seconds(),
		otelmetric.WithAttributes(modeKey.With(string(m.mode))))
	m.since = time.Time{}
}

func must[T any](t T, err error) T {
	if err != nil {
		panic(err)
	}
	return t
}
