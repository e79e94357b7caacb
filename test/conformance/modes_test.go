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
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/dns"
)

const (
	lbIPv4   = "198.18.7.7"
	lbIPv6   = "fd00:198:18::7"
	gwIP     = "198.19.0.20"
	gwDomain = "gateway.%s.svc.cluster.local"
)

// lbCase is a load balancer shape and what a user then sees.
type lbCase struct {
	name    string
	entries func(gwNS string) []netv1alpha1.LoadBalancerIngressStatus
	// addrs are the endpoints' addresses (nil: not headless with endpoints).
	addrs []string
	mesh  bool
	// cname is the ExternalName target with the fallback enabled.
	cname func(gwNS string) string
}

var lbCases = []lbCase{{
	name: "ip",
	entries: func(string) []netv1alpha1.LoadBalancerIngressStatus {
		return []netv1alpha1.LoadBalancerIngressStatus{ipEntry(lbIPv4)}
	},
	addrs: []string{lbIPv4},
}, {
	name: "dualstack",
	entries: func(string) []netv1alpha1.LoadBalancerIngressStatus {
		return []netv1alpha1.LoadBalancerIngressStatus{ipEntry(lbIPv6), ipEntry(lbIPv4)}
	},
	addrs: []string{lbIPv4, lbIPv6},
}, {
	name: "internal",
	entries: func(gw string) []netv1alpha1.LoadBalancerIngressStatus {
		return []netv1alpha1.LoadBalancerIngressStatus{internalEntry(fmt.Sprintf(gwDomain, gw))}
	},
	addrs: []string{gwIP},
}, {
	name: "unresolvable",
	entries: func(gw string) []netv1alpha1.LoadBalancerIngressStatus {
		return []netv1alpha1.LoadBalancerIngressStatus{internalEntry("missing." + gw + ".svc.cluster.local")}
	},
	cname: func(gw string) string { return "missing." + gw + ".svc.cluster.local" },
}, {
	name: "domain",
	entries: func(string) []netv1alpha1.LoadBalancerIngressStatus {
		return []netv1alpha1.LoadBalancerIngressStatus{{Domain: "lb.example.com"}}
	},
	cname: func(string) string { return "lb.example.com" },
}, {
	name: "mesh",
	entries: func(string) []netv1alpha1.LoadBalancerIngressStatus {
		return []netv1alpha1.LoadBalancerIngressStatus{{MeshOnly: true}}
	},
	mesh: true,
}, {
	name:    "none",
	entries: func(string) []netv1alpha1.LoadBalancerIngressStatus { return nil },
}}

// want is what a case looks like in a mode.
func (c lbCase) want(mode netcfg.RouteAddressMode, fb netcfg.RouteAddressFallback, gwNS string) shape {
	return c.wantAt(mode, fb, gwNS, gwIP)
}

// wantAt is want for a gateway Service at ip.
func (c lbCase) wantAt(mode netcfg.RouteAddressMode, fb netcfg.RouteAddressFallback, gwNS, ip string) shape {
	if len(c.addrs) == 1 && c.addrs[0] == gwIP {
		c.addrs = []string{ip}
	}
	switch {
	case c.addrs != nil:
		s := shape{Type: corev1.ServiceTypeClusterIP, Headless: true}
		if mode.WritesEndpoints() {
			s.Endpoints = c.addrs
			s.SkipMirror = mode == netcfg.RouteAddressModeEndpointsAndSlices
			if mode == netcfg.RouteAddressModeEndpoints {
				s.Mirrored = 1
				if len(c.addrs) > 1 {
					s.Mirrored = 2 // one per family
				}
			}
		}
		if mode.WritesEndpointSlices() {
			for _, a := range c.addrs {
				fam := "ipv4 IPv4"
				if strings.Contains(a, ":") {
					fam = "ipv6 IPv6"
				}
				s.Slices = append(s.Slices, fmt.Sprintf("%%s-%s %s", fam, a))
			}
		}
		return s
	case c.mesh:
		return shape{Type: corev1.ServiceTypeClusterIP}
	case c.cname != nil && fb == netcfg.RouteAddressFallbackEnabled:
		return shape{Type: corev1.ServiceTypeExternalName, ExternalName: c.cname(gwNS)}
	default:
		return shape{Type: corev1.ServiceTypeClusterIP, Headless: true}
	}
}

func named(s shape, name string) shape {
	s.Slices = append([]string(nil), s.Slices...)
	for i := range s.Slices {
		s.Slices[i] = fmt.Sprintf(s.Slices[i], name)
	}
	return s
}

// TestModesAndLoadBalancers creates a Route for every load balancer shape in
// each of our modes and checks the objects, the mirrored slices and the
// DNS answers; with the fallback disabled, no Service is ExternalName.
func TestModesAndLoadBalancers(t *testing.T) {
	gw := namespace(t, "gateways")
	gatewayService(t, gw, "gateway", gwIP, 80)

	for _, mode := range []netcfg.RouteAddressMode{netcfg.RouteAddressModeEndpoints, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressModeEndpointsAndSlices} {
		for _, fb := range netcfg.RouteAddressFallbacks {
			t.Run(fmt.Sprintf("%s/fallback=%s", mode, fb), func(t *testing.T) {
				setMode(t, mode, fb)
				ns := namespace(t, strings.ToLower(string(mode)))
				for _, c := range lbCases {
					route(t, ns, c.name)
					if e := c.entries(gw); e != nil {
						setLoadBalancer(t, ns, c.name, e...)
					}
				}
				for _, c := range lbCases {
					want := named(c.want(mode, fb, gw), c.name)
					waitShape(t, ns, c.name, want)
					name := fqdn(ns, c.name)
					switch {
					case c.addrs != nil:
						waitDNS(t, name, "A/AAAA "+strings.Join(c.addrs, ","))
					case c.mesh:
						svc, err := env.kube.CoreV1().Services(ns).Get(bg(), c.name, metav1.GetOptions{})
						if err != nil {
							t.Fatal(err)
						}
						waitDNS(t, name, "A/AAAA "+svc.Spec.ClusterIP)
					case want.Type == corev1.ServiceTypeExternalName:
						eventually(t, "CNAME for "+name, func() error {
							a, err := env.dns.Lookup(name)
							if a.CNAME != want.ExternalName {
								return fmt.Errorf("got %v, %v", a, err)
							}
							return nil
						})
					default:
						// NXDOMAIN, or an answer without addresses; a
						// timeout or SERVFAIL is not "no address".
						eventually(t, "no address for "+name, func() error {
							a, err := env.dns.Lookup(name)
							if errors.Is(err, dns.ErrNotFound) || err == nil && len(a.Addresses) == 0 {
								return nil
							}
							return fmt.Errorf("got %v, %v", a, err)
						})
					}
				}
				if fb == netcfg.RouteAddressFallbackDisabled {
					if n := externalNameServices(t, ns); n != 0 {
						t.Errorf("%d ExternalName Services with the fallback disabled", n)
					}
				}
			})
		}
	}
}
