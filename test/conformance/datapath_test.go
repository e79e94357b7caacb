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
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

// The data path (see cluster.StartNetns): the gateway stand-in answers on
// port 80 of these addresses inside a network namespace this suite creates.
const (
	dataLBIP      = "198.18.9.9"
	dataGatewayIP = "198.19.0.90"
)

// setupNetns creates the namespace with the gateway stand-in answering on
// port 80 of each of addrs (default: dataLBIP and dataGatewayIP), removed
// when the test ends. It needs root: without it the test is skipped, and
// fails under CI=true.
func setupNetns(t *testing.T, addrs ...string) {
	t.Helper()
	if len(addrs) == 0 {
		addrs = []string{dataLBIP, dataGatewayIP}
	}
	if os.Geteuid() != 0 {
		skipOrFail(t, "the data path needs root to create a network namespace")
	}
	n, err := cluster.StartNetns(bg(), env.gateway, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
}

// get sends GET http://host/ resolving host through the cluster's DNS, as
// a client in the cluster would, and returns the body.
func get(host string) (string, error) {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			h, port, _ := net.SplitHostPort(addr)
			a, err := env.dns.Lookup(h)
			if err != nil {
				return nil, err
			}
			if len(a.Addresses) == 0 {
				return nil, fmt.Errorf("%s: %s", h, a)
			}
			var d net.Dialer
			return d.DialContext(ctx, network, net.JoinHostPort(a.Addresses[0], port))
		},
	}}
	resp, err := client.Get("http://" + host + "/")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// TestDataPath: for an IP and for a DomainInternal load balancer, an HTTP
// request to http://{route}.{ns}.svc.cluster.local resolved through CoreDNS
// reaches the gateway stand-in with the Route's host, in each of our
// modes; in ExternalName mode the same request follows the CNAME.
func TestDataPath(t *testing.T) {
	setupNetns(t)
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", dataGatewayIP, 80)
	ns := namespace(t, "data")
	setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	route(t, ns, "byip")
	setLoadBalancer(t, ns, "byip", ipEntry(dataLBIP))
	route(t, ns, "byname", "tag")
	setLoadBalancer(t, ns, "byname", internalEntry(fmt.Sprintf(gwDomain, gw)))

	for _, mode := range netcfg.RouteAddressModes {
		setMode(t, mode, netcfg.RouteAddressFallbackEnabled)
		// This mode's objects and no other's, so that the requests below
		// cannot be served by what the previous mode left.
		waitModeObjects(t, ns, mode, map[string]bool{"byname": true, "tag-byname": true}, "byip", "byname", "tag-byname")
		for _, name := range []string{"byip", "byname", "tag-byname"} {
			host := fqdn(ns, name)
			eventually(t, fmt.Sprintf("%s: GET http://%s/", mode, host), func() error {
				if mode.Managed() {
					// Wait for our shape so the request exercises it.
					if a, err := env.dns.Lookup(host); err != nil || a.CNAME != "" {
						return fmt.Errorf("not headless yet: %v %v", a, err)
					}
				} else if name != "byip" {
					if a, err := env.dns.Lookup(host); err != nil || a.CNAME == "" {
						return fmt.Errorf("no CNAME yet: %v %v", a, err)
					}
				}
				body, err := get(host)
				if err != nil {
					return err
				}
				if want := "gateway saw host=" + host; body != want {
					return fmt.Errorf("body %q, want %q", body, want)
				}
				return nil
			})
			t.Logf("%-18s GET http://%s/ → gateway saw the Route's host", mode, host)
		}
	}
}
