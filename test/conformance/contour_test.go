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
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
	"knative.dev/route-address/test/cluster"
)

// Contour (projectcontour/contour) is a Gateway API implementation that
// refuses ExternalName backends by default and reads endpoints from
// EndpointSlices only. Its control plane runs against the local control
// plane with no Envoy: what it decided is read where a user and Envoy
// would read it, in HTTPRoute and HTTPProxy status and in the EDS and RDS
// it serves.
const contourGatewayIP = "198.19.0.93"

// contourLBIP is the byip Route's load balancer IP.
const contourLBIP = "198.18.9.10"

var (
	gvrGatewayClass = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gatewayclasses"}
	gvrGateway      = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gateways"}
	gvrHTTPRoute    = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}
	gvrHTTPProxy    = schema.GroupVersionResource{Group: "projectcontour.io", Version: "v1", Resource: "httpproxies"}
)

type contourEnv struct {
	ns, gw   string
	dyn      dynamic.Interface
	ct       *cluster.Contour
	clusters []string // the EDS names of contourServices' clusters
}

// services are the Route Services each HTTPRoute and HTTPProxy sends to:
// both Routes' own, and the byname Route's tag.
var contourServices = []string{byIP, byName, "canary-" + byName}

func (e *contourEnv) host(svc, kind string) string {
	return svc + "." + kind + "." + e.ns + ".contour.test"
}

func setupContour(t *testing.T) *contourEnv {
	t.Helper()
	if env.local == nil {
		skipOrFail(t, "Contour runs against the local control plane only")
	}
	if err := env.local.InstallContourCRDs(bg()); err != nil {
		t.Fatal("installing Contour's CRDs:", err)
	}
	dyn, err := dynamic.NewForConfig(env.local.Config)
	if err != nil {
		t.Fatal(err)
	}
	e := &contourEnv{gw: namespace(t, "gw"), ns: namespace(t, "contour"), dyn: dyn}
	consumerRoutes(t, e.gw, e.ns, contourGatewayIP, contourLBIP)

	// Contour takes the namespace from the apiserver (created by
	// contourKubeconfig); the GatewayClass and Gateway it serves.
	ct, err := env.local.StartContour(bg(), "gateway")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cluster.Stop(ct.Cmd()) })
	e.ct = ct
	e.create(t, gvrGatewayClass, "", map[string]interface{}{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
		"metadata": map[string]interface{}{"name": "contour-" + e.ns},
		"spec":     map[string]interface{}{"controllerName": cluster.ContourGatewayClass},
	})
	e.create(t, gvrGateway, cluster.ContourNamespace, map[string]interface{}{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
		"metadata": map[string]interface{}{"name": "gateway", "namespace": cluster.ContourNamespace},
		"spec": map[string]interface{}{
			"gatewayClassName": "contour-" + e.ns,
			"listeners": []interface{}{map[string]interface{}{
				"name": "http", "protocol": "HTTP", "port": int64(80),
				"allowedRoutes": map[string]interface{}{"namespaces": map[string]interface{}{"from": "All"}},
			}},
		},
	})
	t.Cleanup(func() {
		_ = dyn.Resource(gvrGateway).Namespace(cluster.ContourNamespace).Delete(bg(), "gateway", metav1.DeleteOptions{})
		_ = dyn.Resource(gvrGatewayClass).Delete(bg(), "contour-"+e.ns, metav1.DeleteOptions{})
	})
	for _, svc := range contourServices {
		e.create(t, gvrHTTPRoute, e.ns, map[string]interface{}{
			"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
			"metadata": map[string]interface{}{"name": svc, "namespace": e.ns},
			"spec": map[string]interface{}{
				"parentRefs": []interface{}{map[string]interface{}{"name": "gateway", "namespace": cluster.ContourNamespace}},
				"hostnames":  []interface{}{e.host(svc, "httproute")},
				"rules": []interface{}{map[string]interface{}{
					"backendRefs": []interface{}{map[string]interface{}{"name": svc, "port": int64(80)}},
				}},
			},
		})
		e.create(t, gvrHTTPProxy, e.ns, map[string]interface{}{
			"apiVersion": "projectcontour.io/v1", "kind": "HTTPProxy",
			"metadata": map[string]interface{}{"name": svc, "namespace": e.ns},
			"spec": map[string]interface{}{
				"virtualhost": map[string]interface{}{"fqdn": e.host(svc, "httpproxy")},
				"routes": []interface{}{map[string]interface{}{
					"services": []interface{}{map[string]interface{}{"name": svc, "port": int64(80)}},
				}},
			},
		})
	}
	eventually(t, "the Gateway Programmed", func() error {
		g, err := dyn.Resource(gvrGateway).Namespace(cluster.ContourNamespace).Get(bg(), "gateway", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c := condition(g.Object, "status", "conditions", "Programmed"); c.status != "True" {
			return fmt.Errorf("Programmed: %+v", c)
		}
		return nil
	})
	for _, svc := range contourServices {
		e.clusters = append(e.clusters, e.ns+"/"+svc+"/http2")
	}
	return e
}

func (e *contourEnv) create(t *testing.T, gvr schema.GroupVersionResource, ns string, obj map[string]interface{}) {
	t.Helper()
	createObject(t, e.dyn, gvr, ns, obj)
}

// createObject creates obj, of the resource gvr, in namespace ns ("" for
// a cluster-scoped one).
func createObject(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns string, obj map[string]interface{}) {
	t.Helper()
	u := &unstructured.Unstructured{Object: obj}
	var err error
	if ns == "" {
		_, err = dyn.Resource(gvr).Create(bg(), u, metav1.CreateOptions{})
	} else {
		_, err = dyn.Resource(gvr).Namespace(ns).Create(bg(), u, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatalf("creating %s %s: %v", gvr.Resource, u.GetName(), err)
	}
}

type cond struct{ status, reason, message string }

// condition finds the condition of type typ in the list at path of obj.
func condition(obj map[string]interface{}, path ...string) cond {
	typ := path[len(path)-1]
	list, _, _ := unstructured.NestedSlice(obj, path[:len(path)-1]...)
	for _, c := range list {
		m, _ := c.(map[string]interface{})
		if m["type"] == typ {
			s, _ := m["status"].(string)
			r, _ := m["reason"].(string)
			msg, _ := m["message"].(string)
			return cond{s, r, msg}
		}
	}
	return cond{}
}

// contourView is what Contour made of one Route Service.
type contourView struct {
	// resolvedRefs is the HTTPRoute's ResolvedRefs condition.
	resolvedRefs cond
	// proxy is the HTTPProxy's currentStatus, and the reason of its first
	// error, if any.
	proxy, proxyError string
	// eds is the endpoints of the Service's EDS cluster ("ip:port",
	// sorted), nil when there is no such cluster.
	eds []string
	// routeRDS and proxyRDS are where RDS sends the HTTPRoute's and the
	// HTTPProxy's host: "cluster <name>", "direct <status>", or "" for no
	// virtual host.
	routeRDS, proxyRDS string
	// cdsEDS maps the CDS clusters RDS names to the EDS resource they
	// read.
	cdsEDS map[string]string
	// source is who wrote the slices the EDS endpoints come from.
	source string
}

func (v contourView) String() string {
	eds := "no cluster"
	if v.eds != nil {
		eds = "[" + strings.Join(v.eds, " ") + "]"
	}
	rr := v.resolvedRefs.status
	if v.resolvedRefs.reason != "" {
		rr += " " + v.resolvedRefs.reason
	}
	proxy := v.proxy
	if v.proxyError != "" {
		proxy += " " + v.proxyError
	}
	return fmt.Sprintf("ResolvedRefs=%s; HTTPProxy %s; EDS %s from %s; RDS route %s, proxy %s", rr, proxy, eds, orNone(v.source), orNone(v.routeRDS), orNone(v.proxyRDS))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func (e *contourEnv) view(svc string) (contourView, error) {
	var v contourView
	hr, err := e.dyn.Resource(gvrHTTPRoute).Namespace(e.ns).Get(bg(), svc, metav1.GetOptions{})
	if err != nil {
		return v, err
	}
	parents, _, _ := unstructured.NestedSlice(hr.Object, "status", "parents")
	if len(parents) > 0 {
		v.resolvedRefs = condition(parents[0].(map[string]interface{}), "conditions", "ResolvedRefs")
	}
	hp, err := e.dyn.Resource(gvrHTTPProxy).Namespace(e.ns).Get(bg(), svc, metav1.GetOptions{})
	if err != nil {
		return v, err
	}
	v.proxy, _, _ = unstructured.NestedString(hp.Object, "status", "currentStatus")
	conds, _, _ := unstructured.NestedSlice(hp.Object, "status", "conditions")
	for _, c := range conds {
		errs, _, _ := unstructured.NestedSlice(c.(map[string]interface{}), "errors")
		if len(errs) > 0 {
			v.proxyError, _ = errs[0].(map[string]interface{})["reason"].(string)
		}
	}
	eds, err := e.ct.Snapshot("eds", e.clusters...)
	if err != nil {
		return v, err
	}
	rds, err := e.ct.Snapshot("rds")
	if err != nil {
		return v, err
	}
	cds, err := e.ct.Snapshot("cds")
	if err != nil {
		return v, err
	}
	v.eds = e.endpointsOf(eds, svc)
	v.routeRDS, v.proxyRDS = routeTo(rds, e.host(svc, "httproute")), routeTo(rds, e.host(svc, "httpproxy"))
	v.cdsEDS = map[string]string{}
	for _, raw := range cds {
		var c struct {
			Name string `json:"name"`
			EDS  struct {
				ServiceName string `json:"service_name"`
			} `json:"eds_cluster_config"`
		}
		if json.Unmarshal(raw, &c) == nil {
			v.cdsEDS[c.Name] = c.EDS.ServiceName
		}
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

// endpointsOf returns the endpoints of the EDS cluster of the Route
// Service svc in the EDS resources (Contour names them
// "{namespace}/{service}/{port name}"), nil when there is none.
func (e *contourEnv) endpointsOf(resources []json.RawMessage, svc string) []string {
	for _, raw := range resources {
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
		if json.Unmarshal(raw, &cla) != nil || !strings.HasPrefix(cla.ClusterName, e.ns+"/"+svc+"/") {
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
		return out
	}
	return nil
}

// routeTo says where the RDS resources send host.
func routeTo(resources []json.RawMessage, host string) string {
	for _, raw := range resources {
		var rc struct {
			VirtualHosts []struct {
				Domains []string `json:"domains"`
				Routes  []struct {
					Route *struct {
						Cluster         string `json:"cluster"`
						WeightedCluster *struct {
							Clusters []struct {
								Name string `json:"name"`
							} `json:"clusters"`
						} `json:"weighted_clusters"`
					} `json:"route"`
					DirectResponse *struct {
						Status int `json:"status"`
					} `json:"direct_response"`
				} `json:"routes"`
			} `json:"virtual_hosts"`
		}
		if json.Unmarshal(raw, &rc) != nil {
			continue
		}
		for _, vh := range rc.VirtualHosts {
			if !slices.Contains(vh.Domains, host) || len(vh.Routes) == 0 {
				continue
			}
			r := vh.Routes[0]
			switch {
			case r.DirectResponse != nil:
				return fmt.Sprintf("direct %d", r.DirectResponse.Status)
			case r.Route != nil && r.Route.Cluster != "":
				return "cluster " + r.Route.Cluster
			case r.Route != nil && r.Route.WeightedCluster != nil && len(r.Route.WeightedCluster.Clusters) > 0:
				return "cluster " + r.Route.WeightedCluster.Clusters[0].Name
			}
		}
	}
	return ""
}

// contourWant checks v, for the Route Service svc in mode, against what
// Contour must make of it.
func (e *contourEnv) contourWant(mode netcfg.RouteAddressMode, svc string, v contourView) error {
	external := mode == netcfg.RouteAddressModeExternalName && svc != byIP // upstream: ExternalName for a DomainInternal
	if external {
		switch {
		case v.resolvedRefs.status != "False" || v.resolvedRefs.reason != "BackendNotFound" || !strings.Contains(v.resolvedRefs.message, "ExternalName"):
			return fmt.Errorf("HTTPRoute ResolvedRefs %+v, want False BackendNotFound (an ExternalName service)", v.resolvedRefs)
		case v.proxy != "invalid" || v.proxyError != "ServiceUnresolvedReference":
			return fmt.Errorf("HTTPProxy %s %s, want invalid ServiceUnresolvedReference", v.proxy, v.proxyError)
		case v.eds != nil:
			return fmt.Errorf("EDS has a cluster for it: %v", v.eds)
		case v.routeRDS != "direct 500":
			return fmt.Errorf("RDS sends the HTTPRoute's host to %q, want a direct 500", v.routeRDS)
		case strings.HasPrefix(v.proxyRDS, "cluster "):
			return fmt.Errorf("RDS sends the HTTPProxy's host to %q, want no cluster", v.proxyRDS)
		}
		return nil
	}
	want := []string{contourGatewayIP + ":80"}
	if svc == byIP {
		want = []string{contourLBIP + ":80"}
	}
	prefix := "cluster " + e.ns + "/" + svc + "/"
	switch {
	case v.resolvedRefs.status != "True":
		return fmt.Errorf("HTTPRoute ResolvedRefs %+v, want True", v.resolvedRefs)
	case v.proxy != "valid":
		return fmt.Errorf("HTTPProxy %s %s, want valid", v.proxy, v.proxyError)
	case !slices.Equal(v.eds, want):
		return fmt.Errorf("EDS endpoints %v, want exactly %v (%s)", v.eds, want, backendOf(e.ns, svc))
	case !strings.HasPrefix(v.routeRDS, prefix) || !strings.HasPrefix(v.proxyRDS, prefix):
		return fmt.Errorf("RDS sends the hosts to %q and %q, want the Service's cluster %s…", v.routeRDS, v.proxyRDS, prefix)
	}
	for _, r := range []string{v.routeRDS, v.proxyRDS} {
		if got := v.cdsEDS[strings.TrimPrefix(r, "cluster ")]; got != e.ns+"/"+svc+"/http2" {
			return fmt.Errorf("CDS cluster %s reads EDS %q, want %s/%s/http2", r, got, e.ns, svc)
		}
	}
	if want := edsSource(mode); v.source != want {
		return fmt.Errorf("EDS endpoints come from slices by %q, want %q", v.source, want)
	}
	return nil
}

// TestContour asserts, for every mode and both load balancers, what
// Contour makes of an HTTPRoute and an HTTPProxy whose backend is the
// Route's Service (and a tag's): status, the EDS endpoints and the RDS
// route; then how long the Service's EDS cluster goes without an endpoint
// when the mode is switched while EDS is watched.
func TestContour(t *testing.T) {
	e := setupContour(t)
	table := everyMode(t, e.ns, "Contour", func(mode netcfg.RouteAddressMode, svc string) (string, error) {
		v, err := e.view(svc)
		if err != nil {
			return "", err
		}
		return fmt.Sprint(v), e.contourWant(mode, svc, v)
	})
	t.Logf("observed (Contour %s, no Envoy):\n| mode | load balancer | Service | what Contour made of it |\n%s", cluster.ContourVersion, table)

	t.Run("SwitchUnderWatch", func(t *testing.T) { contourSwitches(t, e) })
}

// contourSwitches measures the switches of switchGaps on the EDS Contour
// gives a newly connected Envoy for the byname Service's cluster.
func contourSwitches(t *testing.T, e *contourEnv) {
	cluster := e.clusters[slices.Index(contourServices, byName)]
	switchGaps(t, e.ns, "EDS for "+cluster, func() ([]string, error) {
		eds, err := e.ct.Snapshot("eds", cluster)
		if err != nil {
			return nil, err
		}
		return e.endpointsOf(eds, byName), nil
	})
}

// consumerRoutes makes what a consumer's test points at, in the mode
// externalname: in ns the Route byIP, whose load balancer is the IP lbIP,
// and the Route byName with a tag "canary", whose DomainInternal names the
// Service "gateway" in gw, at gatewayIP.
func consumerRoutes(t *testing.T, gw, ns, gatewayIP, lbIP string) {
	t.Helper()
	gatewayService(t, gw, "gateway", gatewayIP, 80)
	setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	route(t, ns, byIP)
	setLoadBalancer(t, ns, byIP, ipEntry(lbIP))
	route(t, ns, byName, "canary")
	setLoadBalancer(t, ns, byName, internalEntry(fmt.Sprintf(gwDomain, gw)))
}

// edsSource is the managed-by value of the slices a consumer's EDS endpoints
// come from in mode: our slices, or in the endpoints mode (and
// externalname's IP case) the slice kube-controller-manager mirrors.
func edsSource(mode netcfg.RouteAddressMode) string {
	if mode == netcfg.RouteAddressModeEndpoints || mode == netcfg.RouteAddressModeExternalName {
		return names.MirroredBy
	}
	return names.ManagedBy
}

// everyMode sets each mode in turn and waits until check, for each of the
// Route Services in namespace ns, returns what consumer made of it and no
// error; it returns those views as the rows of a markdown table.
func everyMode(t *testing.T, ns, consumer string, check func(mode netcfg.RouteAddressMode, svc string) (string, error)) string {
	var table []string
	for _, mode := range []netcfg.RouteAddressMode{netcfg.RouteAddressModeExternalName, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressModeEndpointsAndSlices} {
		setMode(t, mode, netcfg.RouteAddressFallbackEnabled)
		waitModeObjects(t, ns, mode, map[string]bool{byName: true, "canary-" + byName: true}, contourServices...)
		for _, svc := range contourServices {
			var v string
			eventually(t, fmt.Sprintf("%s's view of %s in mode %s", consumer, svc, mode), func() error {
				var err error
				v, err = check(mode, svc)
				return err
			})
			lb := map[string]string{byIP: "IP"}[svc]
			if lb == "" {
				lb = "DomainInternal"
			}
			table = append(table, fmt.Sprintf("| %s | %s | %s | %s |", mode, lb, svc, v))
		}
	}
	return strings.Join(table, "\n")
}

// switchGaps switches the mode ExternalName → EndpointsAndSlices →
// EndpointSlices → ExternalName and samples the endpoints an ingress would
// give a newly connected Envoy for the byname Route's Service in namespace
// ns, back to back (each sample a new stream: about the sampling interval
// reported), and reports per switch how long after it there was no
// endpoint. Between two managed modes there must never be none; to and
// from ExternalName the ingress refuses the Service, so the endpoints come
// and go once.
func switchGaps(t *testing.T, ns, what string, sample func() ([]string, error)) {
	setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	waitModeObjects(t, ns, netcfg.RouteAddressModeExternalName, map[string]bool{byName: true}, byName)
	eventually(t, "no endpoint for byname", func() error {
		if eps, err := sample(); err != nil || len(eps) > 0 {
			return fmt.Errorf("%s has %v (%v)", what, eps, err)
		}
		return nil
	})
	for _, s := range []struct {
		mode    netcfg.RouteAddressMode
		managed bool // between two managed modes
	}{
		{netcfg.RouteAddressModeEndpointsAndSlices, false},
		{netcfg.RouteAddressModeEndpointSlices, true},
		{netcfg.RouteAddressModeExternalName, false},
	} {
		start := time.Now()
		setMode(t, s.mode, netcfg.RouteAddressFallbackEnabled)
		var (
			without, settled time.Duration
			samples          int
			last             = start
		)
		// At least 4 s, and until it settles (a slow machine takes longer).
		for time.Since(start) < 4*time.Second || settled == 0 && time.Since(start) < timeout {
			eps, err := sample()
			if err != nil {
				t.Fatal(err)
			}
			now := time.Now()
			samples++
			if len(eps) == 0 {
				without += now.Sub(last)
			}
			last = now
			if ok := (len(eps) > 0) == s.mode.Managed(); !ok {
				settled = 0
			} else if settled == 0 {
				settled = now.Sub(start)
			}
		}
		watched := last.Sub(start)
		if settled == 0 {
			t.Errorf("→ %s: %s did not settle within %v", s.mode, what, watched.Round(time.Second))
		}
		interval := (watched / time.Duration(samples)).Round(time.Millisecond)
		t.Logf("→ %-18s %s settled %v after the switch; no endpoint for %v of the %v watched (%d samples, one every ≈%v)",
			s.mode, what, settled.Round(10*time.Millisecond), without.Round(10*time.Millisecond), watched.Round(100*time.Millisecond), samples, interval)
		if s.managed && without > 0 {
			t.Errorf("→ %s: %s had no endpoint for %v between two managed modes", s.mode, what, without)
		}
	}
}

// backendOf describes the Service's ports and its slices' ports and
// addresses, for a failure message.
func backendOf(ns, svc string) string {
	var b strings.Builder
	if s, err := env.kube.CoreV1().Services(ns).Get(bg(), svc, metav1.GetOptions{}); err == nil {
		for _, p := range s.Spec.Ports {
			fmt.Fprintf(&b, "Service port %s/%d/%s; ", p.Name, p.Port, p.Protocol)
		}
	}
	l, err := env.kube.DiscoveryV1().EndpointSlices(ns).List(bg(), metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + svc})
	if err != nil {
		return err.Error()
	}
	for _, sl := range l.Items {
		fmt.Fprintf(&b, "slice %s (%s):", sl.Name, sl.Labels[discoveryv1.LabelManagedBy])
		for _, p := range sl.Ports {
			fmt.Fprintf(&b, " port %s/%d/%s", ptr.Deref(p.Name, "<nil>"), ptr.Deref(p.Port, 0), ptr.Deref(p.Protocol, ""))
		}
		for _, e := range sl.Endpoints {
			fmt.Fprintf(&b, " %v ready=%v", e.Addresses, ptr.Deref(e.Conditions.Ready, true))
		}
		b.WriteString("; ")
	}
	return b.String()
}
