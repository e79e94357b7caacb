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
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	netclient "knative.dev/networking/pkg/client/clientset/versioned"
	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
	"knative.dev/route-address/test/cluster"
)

// envInt reads a positive integer from the environment, def when unset.
func envInt(t *testing.T, key string, def int) int {
	t.Helper()
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", key, v)
	}
	return n
}

// addressed counts the names of ns that have endpointsandslices' shape: a
// headless Service, our EndpointSlice and our Endpoints.
func addressed(t *testing.T, ns string) (int, error) {
	t.Helper()
	svcs, err := env.kube.CoreV1().Services(ns).List(bg(), metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	sls, err := env.kube.DiscoveryV1().EndpointSlices(ns).List(bg(), metav1.ListOptions{LabelSelector: discoveryv1.LabelManagedBy + "=" + names.ManagedBy})
	if err != nil {
		return 0, err
	}
	eps, err := env.kube.CoreV1().Endpoints(ns).List(bg(), metav1.ListOptions{LabelSelector: discoveryv1.LabelSkipMirror + "=true"})
	if err != nil {
		return 0, err
	}
	has := map[string]int{}
	for _, s := range sls.Items {
		has[s.Labels[discoveryv1.LabelServiceName]] |= 1
	}
	for _, e := range eps.Items {
		has[e.Name] |= 2
	}
	n := 0
	for _, s := range svcs.Items {
		if s.Spec.Type == corev1.ServiceTypeClusterIP && s.Spec.ClusterIP == corev1.ClusterIPNone && has[s.Name] == 3 {
			n++
		}
	}
	return n, nil
}

// TestAPIServerRestartMidSwitch: kube-apiserver is killed a third of the
// way into a switch from externalname to endpointsandslices and started
// again. Right after such a restart OwnerReferencesPermissionEnforcement
// may refuse every Endpoints create (it cannot map the Route's kind until
// it reads discovery again, up to 30 s later); the controller retries each
// refused Route after its own short delay, so the switch converges once
// the refusals stop. It prints, per run, the names converged at the kill,
// how long the apiserver took to be ready, how long after that every name
// had converged, and the writes refused meanwhile. E2E_RESTART_ROUTES
// (default 100; two names each) and E2E_RESTART_RUNS (default 1) size it.
func TestAPIServerRestartMidSwitch(t *testing.T) {
	needLocal(t)
	routes, runs := envInt(t, "E2E_RESTART_ROUTES", 100), envInt(t, "E2E_RESTART_RUNS", 1)
	// After kube-apiserver restarts, client-go's reflectors come back
	// after a back-off that grows with each failed attempt (up to 30 s
	// and more with jitter): the tests after this one get a controller
	// whose informers start afresh.
	// And its OwnerReferencesPermissionEnforcement refuses every object
	// owned by a Route with blockOwnerDeletion (the route reconciler's
	// KIngresses among them) until it maps the Route's kind again, up to
	// 30 s and more: the cleanup waits until a dry-run create of a
	// KIngress owned so passes, sent as the controller (the plugin lets a
	// user who may finalize anything through without a mapping).
	t.Cleanup(func() {
		cfg := rest.CopyConfig(env.local.Config)
		cfg.Impersonate.UserName = "system:serviceaccount:" + cluster.SystemNamespace + ":controller"
		asController, err := netclient.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ing := &netv1alpha1.Ingress{ObjectMeta: metav1.ObjectMeta{
			Namespace: cluster.SystemNamespace, Name: "restart-barrier",
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "serving.knative.dev/v1", Kind: "Route", Name: "barrier", UID: "barrier",
				BlockOwnerDeletion: ptr.To(true),
			}},
		}}
		eventuallyWithin(t, 2*time.Minute, "kube-apiserver to map the Route's kind again", func() error {
			_, err := asController.NetworkingV1alpha1().Ingresses(cluster.SystemNamespace).Create(bg(), ing, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		})
		stopController()
		if err := startController(); err != nil {
			t.Error("starting the controller again:", err)
		}
	})
	all := 2 * routes
	setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", "198.19.0.140", 80)
	ns := namespace(t, "restart")
	gatewayRoutes(t, ns, gw, routes)
	eventuallyWithin(t, 5*time.Minute, "every name ExternalName", func() error {
		if n := externalNameServices(t, ns); n != all {
			return fmt.Errorf("%d of %d", n, all)
		}
		return nil
	})

	rows := []string{"run  names  converged at kill  apiserver ready after kill  converged after ready  refused 403  other failed writes"}
	for run := 1; run <= runs; run++ {
		start := time.Now()
		setMode(t, netcfg.RouteAddressModeEndpointsAndSlices, netcfg.RouteAddressFallbackEnabled)
		var atKill int
		eventuallyWithin(t, 5*time.Minute, "a third of the names converged", func() error {
			n, err := addressed(t, ns)
			if err != nil {
				return err
			}
			if atKill = n; n < all/3 {
				return fmt.Errorf("%d of %d", n, all)
			}
			return nil
		})
		killed := time.Now()
		ready, err := env.local.RestartAPIServer(bg())
		if err != nil {
			t.Fatal(err)
		}
		eventuallyWithin(t, 5*time.Minute, "every name converged after the restart", func() error {
			n, err := addressed(t, ns)
			if err != nil {
				return err
			}
			if n < all {
				return fmt.Errorf("%d of %d", n, all)
			}
			return nil
		})
		converged := time.Now()
		refused, other := 0, 0
		for _, w := range auditWrites(t, start, ns) {
			switch {
			case w.Took():
			case w.ResponseStatus.Code == 403:
				refused++
			default:
				other++
			}
		}
		rows = append(rows, fmt.Sprintf("%3d  %5d  %17d  %26.1f s  %19.1f s  %11d  %19d",
			run, all, atKill, ready.Sub(killed).Seconds(), converged.Sub(ready).Seconds(), refused, other))
		t.Log(rows[len(rows)-1])
		if run < runs {
			setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
			eventuallyWithin(t, 5*time.Minute, "every name ExternalName again", func() error {
				if n := externalNameServices(t, ns); n != all {
					return fmt.Errorf("%d of %d", n, all)
				}
				return nil
			})
		}
	}
	t.Logf("kube-apiserver restarted mid-switch (externalname → endpointsandslices):\n%s", strings.Join(rows, "\n"))
}
