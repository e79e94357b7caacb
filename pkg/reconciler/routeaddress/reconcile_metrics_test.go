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
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgotesting "k8s.io/client-go/testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	. "knative.dev/pkg/reconciler/testing"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/plan"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

// TestReconcileMetrics: what a reconcile records, as a scrape shows it
// (values that are 0 left out).
func TestReconcileMetrics(t *testing.T) {
	route, untagged := rt.Route(true), rt.Route(false)
	es, on := netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled
	h, tg := rt.RouteName, rt.TagService

	for _, tc := range []struct {
		row  TableRow
		want []string
	}{{
		row: TableRow{
			Name:           "switch ExternalName → EndpointSlices: the name turns headless, two writes",
			Key:            key,
			Objects:        base(untagged, lbInternal, live(routeReconcilerObjects(untagged, lbInternal)...)...),
			WantCreates:    []runtime.Object{bound(rt.Slice(h, ipv4, "10.96.100.10"))},
			WantUpdates:    []clientgotesting.UpdateActionImpl{updateOf(headlessFrom(liveOne(routeReconcilerObjects(untagged, lbInternal)[0].(*corev1.Service)), rt.HeadlessService(h)))},
			WantEvents:     []string{created(plan.KindEndpointSlice, h+"-ipv4")},
			PostConditions: []func(*testing.T, *TableRow){inOrder("create endpointslices hello-ipv4", "update services hello")},
		},
		want: []string{
			"kn.routeaddress.names.count{mode=endpointslices,shape=headless} 1",
			"kn.routeaddress.writes{kind=EndpointSlice,result=success,verb=create} 1",
			"kn.routeaddress.writes{kind=Service,result=success,verb=update} 1",
		},
	}, {
		row: TableRow{
			Name:    "not owned: a Service someone else made with the Route's name",
			Key:     key,
			Objects: base(untagged, lbIP, foreign(liveOne(rt.HeadlessService(h)))),
			WantEvents: []string{
				Eventf(corev1.EventTypeWarning, "NotOwned", "Service %q exists and is not controlled by Route %q; it is left alone and this name is not addressed", h, h),
			},
		},
		want: []string{
			"kn.routeaddress.names.count{mode=endpointslices,shape=headless} 1",
			"kn.routeaddress.names.pending.count{reason=NotOwned} 1",
		},
	}, {
		row: TableRow{
			Name:         "a failing create stops its own name only",
			Key:          key,
			Objects:      base(route, lbIP, live(rt.HeadlessService(h), rt.HeadlessService(tg))...),
			WithReactors: []clientgotesting.ReactionFunc{refuseNamed("create", "endpointslices", tg+"-ipv4", errors.New("inducing failure"))},
			WantErr:      true,
			WantCreates:  []runtime.Object{bound(rt.Slice(tg, ipv4, "10.0.0.7")), bound(rt.Slice(h, ipv4, "10.0.0.7"))},
			WantEvents: []string{
				Eventf(corev1.EventTypeWarning, "CreationFailed", "Failed to create EndpointSlice %q: inducing failure", tg+"-ipv4"),
				created(plan.KindEndpointSlice, h+"-ipv4"),
				Eventf(corev1.EventTypeWarning, "InternalError", "failed to create EndpointSlice %q: inducing failure", tg+"-ipv4"),
			},
		},
		want: []string{
			"kn.routeaddress.names.count{mode=endpointslices,shape=headless} 2",
			"kn.routeaddress.names.pending.count{reason=WriteFailed} 1",
			"kn.routeaddress.writes{kind=EndpointSlice,result=error,verb=create} 1",
			"kn.routeaddress.writes{kind=EndpointSlice,result=success,verb=create} 1",
		},
	}, {
		row: TableRow{
			Name:    "a load balancer outside the cluster: the name falls back to ExternalName",
			Key:     key,
			Objects: base(untagged, []netv1alpha1.LoadBalancerIngressStatus{rt.Domain("lb.example.com")}, live(rt.HeadlessService(h, rt.WithExternalName("lb.example.com")))...),
			WantEvents: []string{Eventf(corev1.EventTypeWarning, "ExternalNameFallback",
				"Service %q falls back to ExternalName %q because its load balancer cannot be resolved to IP addresses (route-address-externalname-fallback=enabled): ExternalDomain: load balancer domain \"lb.example.com\" is outside the cluster",
				h, "lb.example.com")},
		},
		want: []string{
			"kn.routeaddress.names.count{mode=endpointslices,shape=externalname} 1",
			"kn.routeaddress.names.pending.count{reason=ExternalNameFallback} 1",
		},
	}} {
		t.Run(tc.row.Name, func(t *testing.T) {
			reader := sdkmetric.NewManualReader()
			m := newMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
			m.configured(es)
			row := tc.row
			row.Ctx = context.WithValue(withMode(es, on), metricsKey{}, m)
			TableTest{row}.Test(t, recording(factory()))
			if diff := cmp.Diff(tc.want, nonZero(scrape(t, reader))); diff != "" {
				t.Error("scrape (-want, +got):", diff)
			}
		})
	}
}
