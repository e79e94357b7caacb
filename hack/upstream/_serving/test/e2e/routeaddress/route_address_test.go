//go:build e2e
// +build e2e

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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	netcfg "knative.dev/networking/pkg/config"
	"knative.dev/pkg/system"
	"knative.dev/serving/test"
	"knative.dev/serving/test/e2e"
	v1test "knative.dev/serving/test/v1"
)

// TestRouteAddress checks, on a cluster whose config-network sets
// route-address-mode to a managed mode, that a Route's cluster-local
// Service is headless rather than ExternalName, that its Endpoints and/or
// EndpointSlices hold the addresses of the Route's Ingress (its private load
// balancer's IP, or the ClusterIPs of the Service its DomainInternal names),
// and that the Route answers on its cluster-local address. test/e2e-tests.sh
// runs it with route-address-mode set to endpointsandslices; run with the
// key unset, it skips.
func TestRouteAddress(t *testing.T) {
	t.Parallel()
	clients := test.Setup(t)
	ctx := context.Background()

	cm, err := clients.KubeClient.CoreV1().ConfigMaps(system.Namespace()).Get(ctx, netcfg.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal("Failed to get config-network:", err)
	}
	nc, err := netcfg.NewConfigFromConfigMap(cm)
	if err != nil {
		t.Fatal("Failed to parse config-network:", err)
	}
	if !nc.RouteAddressMode.Managed() {
		t.Skipf("%s is %q", netcfg.RouteAddressModeKey, nc.RouteAddressMode)
	}

	names := test.ResourceNames{
		Service: test.ObjectNameForTest(t),
		Image:   test.HelloWorld,
	}
	test.EnsureTearDown(t, clients, &names)
	resources, err := v1test.CreateServiceReady(t, clients, &names)
	if err != nil {
		t.Fatalf("Failed to create Service %s: %v", names.Service, err)
	}
	route := resources.Route

	ing, err := clients.NetworkingClient.Ingresses.Get(ctx, route.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal("Failed to get the Route's Ingress:", err)
	}
	want, err := ingressAddresses(ctx, clients, ing.Status.PrivateLoadBalancer.Ingress)
	if err != nil {
		t.Fatal(err)
	}

	// The Service and its endpoints follow the Ingress shortly after the
	// Route is ready.
	var last string
	if err := wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		last = check(ctx, clients, types.NamespacedName{Namespace: route.Namespace, Name: route.Name}, nc.RouteAddressMode, want)
		return last == "", nil
	}); err != nil {
		t.Fatalf("Service %s/%s: %s", route.Namespace, route.Name, last)
	}

	e2e.TestProxyToHelloworld(t, clients, route.Status.Address.URL.URL(), false, false, nil)
}

// ingressAddresses returns the IP addresses a private load balancer stands
// for: its IP, or the ClusterIPs of the Service its DomainInternal names.
func ingressAddresses(ctx context.Context, clients *test.Clients, lbs []netv1alpha1.LoadBalancerIngressStatus) ([]string, error) {
	if len(lbs) != 1 {
		return nil, fmt.Errorf("private load balancer %v: want one entry", lbs)
	}
	lb := lbs[0]
	if lb.IP != "" {
		return []string{lb.IP}, nil
	}
	parts := strings.Split(lb.DomainInternal, ".")
	if len(parts) < 2 {
		return nil, fmt.Errorf("private load balancer %v: no IP, and DomainInternal %q names no Service", lbs, lb.DomainInternal)
	}
	svc, err := clients.KubeClient.CoreV1().Services(parts[1]).Get(ctx, parts[0], metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("Service %s/%s of DomainInternal %q: %w", parts[1], parts[0], lb.DomainInternal, err)
	}
	return slices.Sorted(slices.Values(svc.Spec.ClusterIPs)), nil
}

// check returns what is wrong with the Service key and its endpoints in
// mode, "" when nothing is.
func check(ctx context.Context, clients *test.Clients, key types.NamespacedName, mode netcfg.RouteAddressMode, want []string) string {
	ns, name := key.Namespace, key.Name
	svc, err := clients.KubeClient.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	if svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.ClusterIP != corev1.ClusterIPNone {
		return fmt.Sprintf("type %s, clusterIP %q; want a headless ClusterIP Service", svc.Spec.Type, svc.Spec.ClusterIP)
	}
	if mode.WritesEndpoints() {
		ep, err := clients.KubeClient.CoreV1().Endpoints(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrs.IsNotFound(err) {
			return "no Endpoints"
		} else if err != nil {
			return err.Error()
		}
		var got []string
		for _, s := range ep.Subsets {
			for _, a := range s.Addresses {
				got = append(got, a.IP)
			}
		}
		if slices.Sort(got); !slices.Equal(got, want) {
			return fmt.Sprintf("Endpoints hold %v, want %v", got, want)
		}
	}
	// In Endpoints mode the EndpointSlices are kube-controller-manager's
	// mirror of the Endpoints; they hold the same addresses.
	sls, err := test.EndpointSlicesForService(clients.KubeClient, ns, name)
	if err != nil {
		return err.Error()
	}
	var got []string
	for _, s := range sls {
		for _, e := range s.Endpoints {
			got = append(got, e.Addresses...)
		}
	}
	if slices.Sort(got); !slices.Equal(got, want) {
		return fmt.Sprintf("EndpointSlices hold %v, want %v", got, want)
	}
	return ""
}
