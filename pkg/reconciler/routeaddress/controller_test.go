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
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	filteredfactory "knative.dev/pkg/client/injection/kube/informers/factory/filtered"
	"knative.dev/pkg/configmap"
	"knative.dev/pkg/controller"
	"knative.dev/pkg/kmeta"
	"knative.dev/pkg/logging"
	logtesting "knative.dev/pkg/logging/testing"
	. "knative.dev/pkg/reconciler/testing"
	"knative.dev/pkg/tracker"
	v1 "knative.dev/serving/pkg/apis/serving/v1"

	_ "knative.dev/networking/pkg/client/injection/informers/networking/v1alpha1/ingress/fake"
	_ "knative.dev/pkg/client/injection/kube/informers/core/v1/endpoints/fake"
	_ "knative.dev/pkg/client/injection/kube/informers/core/v1/namespace/fake"
	_ "knative.dev/pkg/client/injection/kube/informers/core/v1/service/fake"
	_ "knative.dev/pkg/client/injection/kube/informers/discovery/v1/endpointslice/filtered/fake"
	_ "knative.dev/pkg/client/injection/kube/informers/factory/filtered/fake"
	_ "knative.dev/serving/pkg/client/injection/informers/serving/v1/route/fake"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

// TestNewController builds the controller with no error logged; a second
// one on the same informers cannot add the EndpointSlice indexes again,
// and says so in an error log line instead of failing.
func TestNewController(t *testing.T) {
	ctx, _ := SetupFakeContext(t, func(ctx context.Context) context.Context {
		//series:foreign
		return filteredfactory.WithSelectors(ctx, SliceSelector, ForeignSliceSelector)
		//series:else
		// return filteredfactory.WithSelectors(ctx, SliceSelector)
		//series:end
	})
	core, logs := observer.New(zap.ErrorLevel)
	ctx = logging.WithLogger(ctx, zap.New(core).Sugar())
	cmw := configmap.NewStaticWatcher(configMaps(map[string]string{netcfg.RouteAddressModeKey: "EndpointSlices"})...)

	if impl := NewController(ctx, cmw); impl == nil {
		t.Fatal("NewController() = nil")
	}
	if n := logs.Len(); n != 0 {
		t.Fatalf("NewController logged %d errors, want none: %v", n, logs.All())
	}
	if impl := NewController(ctx, cmw); impl == nil {
		t.Fatal("second NewController() = nil")
	}
	//series:foreign
	if got, want := logs.FilterMessage("Failed to add the EndpointSlice index").Len(), 2; got != want {
		//series:else
		// if got, want := logs.FilterMessage("Failed to add the EndpointSlice index").Len(), 1; got != want {
		//series:end
		t.Errorf("second NewController: %d index errors logged, want %d (one per EndpointSlice informer): %v", got, want, logs.All())
	}
}

// TestConfigResync: every Route is reconciled again when the network or
// domain configuration or the route-address settings stored change, not
// when a ConfigMap is saved with nothing they parse changed, nor for the
// other ConfigMaps the store follows.
func TestConfigResync(t *testing.T) {
	calls := 0
	ctx := controller.WithEventRecorder(logtesting.TestContextWithLogger(t), record.NewFakeRecorder(10))
	store := newConfigStore(ctx, configResync(func() { calls++ }))
	load := func(cms ...*corev1.ConfigMap) int {
		before := calls
		for _, cm := range cms {
			store.OnConfigChanged(cm)
		}
		return calls - before
	}
	cms := configMaps(map[string]string{netcfg.RouteAddressModeKey: "EndpointSlices"})
	if n := load(cms...); n == 0 {
		t.Fatal("first load: no resync")
	}
	network, gcConfig := cms[0], cms[2]
	domain := func(domains string) *corev1.ConfigMap {
		cm := cms[1].DeepCopy()
		cm.Data = map[string]string{domains: ""}
		return cm
	}
	with := func(data map[string]string) *corev1.ConfigMap {
		return configMaps(data)[0]
	}
	steps := []struct {
		name string
		cm   *corev1.ConfigMap
		want int
	}{
		{"config-gc", gcConfig, 0},
		{"config-domain, unchanged", domain("example.com"), 0},
		{"config-domain, another domain", domain("example.org"), 1},
		{"config-network, unchanged", network, 0},
		{"config-network, a key nothing parses", with(map[string]string{netcfg.RouteAddressModeKey: "EndpointSlices", "unread-key": "x"}), 0},
		{"route-address-mode changed", with(map[string]string{netcfg.RouteAddressModeKey: "Endpoints"}), 1},
		{"route-address-externalname-fallback changed", with(map[string]string{
			netcfg.RouteAddressModeKey: "Endpoints", netcfg.RouteAddressExternalNameFallbackKey: "Disabled",
		}), 1},
		{"domain-template changed", with(map[string]string{
			netcfg.RouteAddressModeKey: "Endpoints", netcfg.RouteAddressExternalNameFallbackKey: "Disabled", netcfg.DomainTemplateKey: "{{.Name}}-{{.Namespace}}.{{.Domain}}",
		}), 1},
		{"config-network, the same values saved again", with(map[string]string{
			netcfg.RouteAddressModeKey: "Endpoints", netcfg.RouteAddressExternalNameFallbackKey: "Disabled", netcfg.DomainTemplateKey: "{{.Name}}-{{.Namespace}}.{{.Domain}}",
		}), 0},
	}
	for _, s := range steps {
		if got := load(s.cm); got != s.want {
			t.Errorf("%s: %d resyncs, want %d", s.name, got, s.want)
		}
	}
}

// refTracker records references and fails with err.
type refTracker struct {
	tracker.Interface
	err  error
	refs []tracker.Reference
}

func (f *refTracker) TrackReference(ref tracker.Reference, _ interface{}) error {
	f.refs = append(f.refs, ref)
	return f.err
}

// TestTrack: the Service a DomainInternal names is tracked for the Route; a
// tracker that refuses is logged, naming the Service, and nothing else.
func TestTrack(t *testing.T) {
	ref := types.NamespacedName{Namespace: "kourier-system", Name: "kourier-internal"}
	for _, tc := range []struct {
		name string
		err  error
		logs int
	}{{"tracked", nil, 0}, {"refused", errors.New("invalid reference"), 1}} {
		t.Run(tc.name, func(t *testing.T) {
			core, logs := observer.New(zap.ErrorLevel)
			ctx := logging.WithLogger(context.Background(), zap.New(core).Sugar())
			tr := &refTracker{err: tc.err}
			(&Reconciler{tracker: tr}).track(ctx, ref, &v1.Route{})
			want := []tracker.Reference{{APIVersion: "v1", Kind: "Service", Namespace: ref.Namespace, Name: ref.Name}}
			if diff := cmp.Diff(want, tr.refs); diff != "" {
				t.Errorf("tracked (-want +got):\n%s", diff)
			}
			if got := logs.FilterMessage("failed to track Service " + ref.String()).Len(); got != tc.logs || logs.Len() != tc.logs {
				t.Errorf("logged %v, want %d line(s) naming the Service", logs.All(), tc.logs)
			}
		})
	}
}

// TestRouteOfService: an Endpoints or EndpointSlice the Route does not
// control enqueues the Route that controls the Service it serves; one of a
// Service no Route controls, or of no Service, enqueues nothing.
func TestRouteOfService(t *testing.T) {
	route := &v1.Route{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "hello", UID: "route-uid"}}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, s := range []*corev1.Service{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "canary-hello", OwnerReferences: []metav1.OwnerReference{*kmeta.NewControllerRef(route)}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "other"}},
	} {
		if err := indexer.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	slice := func(service string) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: "claims-1",
			Labels: map[string]string{discoveryv1.LabelServiceName: service},
		}}
	}
	endpoints := func(name string) *corev1.Endpoints {
		return &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	}
	hello := []types.NamespacedName{{Namespace: "ns", Name: "hello"}}
	for _, tc := range []struct {
		name string
		obj  interface{}
		want []types.NamespacedName
	}{
		{"a slice of the Route's Service", slice("canary-hello"), hello},
		{"a deleted slice of the Route's Service", cache.DeletedFinalStateUnknown{Key: "ns/claims-1", Obj: slice("canary-hello")}, hello},
		{"Endpoints of the Route's Service", endpoints("canary-hello"), hello},
		{"a slice of a Service no Route controls", slice("other"), nil},
		{"a slice of no Service", slice("gone"), nil},
		{"a slice without a service-name label", slice(""), nil},
		{"Endpoints of no Service", endpoints("gone"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []types.NamespacedName
			routeOfService(corev1listers.NewServiceLister(indexer), func(k types.NamespacedName) { got = append(got, k) })(tc.obj)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("enqueued (-want +got):\n%s", diff)
			}
		})
	}
}
