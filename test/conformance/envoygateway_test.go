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
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

// Envoy Gateway (envoyproxy/gateway) refuses ExternalName backends since
// v1.9.0 (ResolvedRefs=False UnsupportedValue, and a 500 for the route) and
// routes to a Service's endpoints, read from its EndpointSlices by the
// Service port's name. Its control plane runs against the local control
// plane with no Envoy: what it decided is read where a user and Envoy
// would read it, in HTTPRoute status and in the RDS and EDS it serves the
// Gateway's Envoy.
const egGatewayIP = "198.19.0.94"

// egLBIP is the byip Route's load balancer IP.
const egLBIP = "198.18.9.11"

type egEnv struct {
	ns, gw string
	dyn    dynamic.Interface
	eg     *cluster.EnvoyGateway
}

func (e *egEnv) host(svc string) string { return svc + "." + e.ns + ".eg.test" }

// gateway is the Gateway's "namespace/name", its Envoy's node cluster.
func (e *egEnv) gateway() string { return e.ns + "/gateway" }

// cluster is the xDS cluster of the HTTPRoute to the Route Service svc.
func (e *egEnv) cluster(svc string) string { return "httproute/" + e.ns + "/" + svc + "/rule/0" }

func setupEnvoyGateway(t *testing.T) *egEnv {
	t.Helper()
	if env.local == nil {
		skipOrFail(t, "Envoy Gateway runs against the local control plane only")
	}
	if err := env.local.InstallEnvoyGatewayCRDs(bg()); err != nil {
		t.Fatal("installing Envoy Gateway's CRDs:", err)
	}
	// Envoy Gateway's control plane serves its metrics on :8080 (a fixed
	// address in v1.9.1), where serving's controller serves its health
	// probes: on one host, the controller runs as the replicas do, with
	// its probes off.
	runWithoutProbes(t)
	dyn, err := dynamic.NewForConfig(env.local.Config)
	if err != nil {
		t.Fatal(err)
	}
	e := &egEnv{gw: namespace(t, "gw"), ns: namespace(t, "eg"), dyn: dyn}
	consumerRoutes(t, e.gw, e.ns, egGatewayIP, egLBIP)

	eg, err := env.local.StartEnvoyGateway(bg())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eg.Stop)
	e.eg = eg
	createObject(t, dyn, gvrGatewayClass, "", map[string]interface{}{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
		"metadata": map[string]interface{}{"name": "eg-" + e.ns},
		"spec":     map[string]interface{}{"controllerName": cluster.EnvoyGatewayClass},
	})
	t.Cleanup(func() { _ = dyn.Resource(gvrGatewayClass).Delete(bg(), "eg-"+e.ns, metav1.DeleteOptions{}) })
	createObject(t, dyn, gvrGateway, e.ns, map[string]interface{}{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
		"metadata": map[string]interface{}{"name": "gateway", "namespace": e.ns},
		"spec": map[string]interface{}{
			"gatewayClassName": "eg-" + e.ns,
			"listeners": []interface{}{map[string]interface{}{
				"name": "http", "protocol": "HTTP", "port": int64(80),
			}},
		},
	})
	for _, svc := range contourServices {
		createObject(t, dyn, gvrHTTPRoute, e.ns, map[string]interface{}{
			"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
			"metadata": map[string]interface{}{"name": svc, "namespace": e.ns},
			"spec": map[string]interface{}{
				"parentRefs": []interface{}{map[string]interface{}{"name": "gateway"}},
				"hostnames":  []interface{}{e.host(svc)},
				"rules": []interface{}{map[string]interface{}{
					"backendRefs": []interface{}{map[string]interface{}{"name": svc, "port": int64(80)}},
				}},
			},
		})
	}
	eventually(t, "the GatewayClass Accepted", func() error {
		g, err := dyn.Resource(gvrGatewayClass).Get(bg(), "eg-"+e.ns, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c := condition(g.Object, "status", "conditions", "Accepted"); c.status != "True" {
			return fmt.Errorf("Accepted: %+v", c)
		}
		return nil
	})
	return e
}

// egView is what Envoy Gateway made of one Route Service.
type egView struct {
	// resolvedRefs is the HTTPRoute's ResolvedRefs condition.
	resolvedRefs cond
	// rds is where RDS sends the HTTPRoute's host: "cluster <name>",
	// "direct <status>", or "" for no virtual host.
	rds string
	// eds is the endpoints of the HTTPRoute's EDS cluster ("ip:port",
	// sorted), nil when there is no such cluster.
	eds []string
	// source is who wrote the slices the EDS endpoints come from.
	source string
}

func (v egView) String() string {
	eds := "no cluster"
	if v.eds != nil {
		eds = "[" + strings.Join(v.eds, " ") + "]"
	}
	rr := v.resolvedRefs.status
	if v.resolvedRefs.reason != "" {
		rr += " " + v.resolvedRefs.reason
	}
	return fmt.Sprintf("ResolvedRefs=%s; RDS %s; EDS %s from %s", rr, orNone(v.rds), eds, orNone(v.source))
}

func (e *egEnv) view(svc string) (egView, error) {
	var v egView
	hr, err := e.dyn.Resource(gvrHTTPRoute).Namespace(e.ns).Get(bg(), svc, metav1.GetOptions{})
	if err != nil {
		return v, err
	}
	parents, _, _ := unstructured.NestedSlice(hr.Object, "status", "parents")
	if len(parents) > 0 {
		v.resolvedRefs = condition(parents[0].(map[string]interface{}), "conditions", "ResolvedRefs")
	}
	rds, err := e.eg.Snapshot(bg(), e.gateway(), "rds")
	if err != nil {
		return v, err
	}
	v.rds = routeTo(rds, e.host(svc))
	if v.eds, err = e.endpoints(svc); err != nil {
		return v, err
	}
	if v.eds != nil {
		l, err := env.kube.DiscoveryV1().EndpointSlices(e.ns).List(bg(), metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + svc})
		if err != nil {
			return v, err
		}
		var by []string
		for _, sl := range l.Items {
			by = append(by, sl.Labels[discoveryv1.LabelManagedBy])
		}
		sort.Strings(by)
		v.source = strings.Join(slices.Compact(by), ", ")
	}
	return v, nil
}

// endpoints returns the endpoints EDS gives the HTTPRoute to svc's cluster
// now, nil when there is no such cluster.
func (e *egEnv) endpoints(svc string) ([]string, error) {
	eds, err := e.eg.Snapshot(bg(), e.gateway(), "eds")
	if err != nil {
		return nil, err
	}
	for _, raw := range eds {
		var cla struct {
			ClusterName string `json:"cluster_name"`
			Endpoints   []struct {
				LbEndpoints []struct {
					Endpoint struct {
						Address struct {
							SocketAddress struct {
								Address   string `json:"address"`
								PortValue int    `json:"port_value"`
							} `json:"socket_address"`
						} `json:"address"`
					} `json:"endpoint"`
				} `json:"lb_endpoints"`
			} `json:"endpoints"`
		}
		if json.Unmarshal(raw, &cla) != nil || cla.ClusterName != e.cluster(svc) {
			continue
		}
		out := []string{}
		for _, l := range cla.Endpoints {
			for _, ep := range l.LbEndpoints {
				a := ep.Endpoint.Address.SocketAddress
				out = append(out, fmt.Sprintf("%s:%d", a.Address, a.PortValue))
			}
		}
		sort.Strings(out)
		return out, nil
	}
	return nil, nil
}

// egWant checks v, for the Route Service svc in mode, against what Envoy
// Gateway must make of it.
func (e *egEnv) egWant(mode netcfg.RouteAddressMode, svc string, v egView) error {
	if mode == netcfg.RouteAddressModeExternalName && svc != byIP { // upstream: ExternalName for a DomainInternal
		switch {
		case v.resolvedRefs.status != "False" || v.resolvedRefs.reason != "UnsupportedValue" || !strings.Contains(v.resolvedRefs.message, "ExternalName"):
			return fmt.Errorf("HTTPRoute ResolvedRefs %+v, want False UnsupportedValue (an ExternalName Service)", v.resolvedRefs)
		case v.rds != "direct 500":
			return fmt.Errorf("RDS sends the host to %q, want a direct 500", v.rds)
		case len(v.eds) > 0:
			return fmt.Errorf("EDS has endpoints for it: %v", v.eds)
		}
		return nil
	}
	want := []string{egGatewayIP + ":80"}
	if svc == byIP {
		want = []string{egLBIP + ":80"}
	}
	switch {
	case v.resolvedRefs.status != "True":
		return fmt.Errorf("HTTPRoute ResolvedRefs %+v, want True", v.resolvedRefs)
	case v.rds != "cluster "+e.cluster(svc):
		return fmt.Errorf("RDS sends the host to %q, want cluster %s", v.rds, e.cluster(svc))
	case !slices.Equal(v.eds, want):
		return fmt.Errorf("EDS endpoints %v, want exactly %v (%s)", v.eds, want, backendOf(e.ns, svc))
	}
	if want := edsSource(mode); v.source != want {
		return fmt.Errorf("EDS endpoints come from slices by %q, want %q", v.source, want)
	}
	return nil
}

// TestEnvoyGateway asserts, for every mode and both load balancers, what
// Envoy Gateway makes of an HTTPRoute whose backend is the Route's Service
// (and a tag's): its status, the RDS route and the EDS endpoints; then how
// long the HTTPRoute's EDS cluster goes without an endpoint when the mode
// is switched.
func TestEnvoyGateway(t *testing.T) {
	e := setupEnvoyGateway(t)
	table := everyMode(t, e.ns, "Envoy Gateway", func(mode netcfg.RouteAddressMode, svc string) (string, error) {
		v, err := e.view(svc)
		if err != nil {
			return "", err
		}
		return v.String(), e.egWant(mode, svc, v)
	})
	t.Logf("observed (Envoy Gateway %s, no Envoy):\n| mode | load balancer | Service | what Envoy Gateway made of it |\n%s", cluster.EnvoyGatewayVersion, table)

	t.Run("SwitchUnderWatch", func(t *testing.T) {
		switchGaps(t, e.ns, "EDS for "+e.cluster(byName), func() ([]string, error) { return e.endpoints(byName) })
	})
}
