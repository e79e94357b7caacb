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
	"os/exec"
	"strings"
	"testing"
	"time"

	"knative.dev/route-address/pkg/reconciler/routeaddress/config"
)

// The data path: a stand-in for the ingress's internal gateway runs inside
// a network namespace this test creates, joined to the host by a veth pair
// on 198.18.0.0/30 (a range this machine does not use). The addresses the
// Route's load balancer names (an IP, and the ClusterIP of a gateway
// Service) are assigned inside the namespace and routed to it, so a client
// that resolves the Route's name through CoreDNS reaches the stand-in
// without kube-proxy. Traffic goes only to these addresses.
const (
	hostVeth      = "198.18.0.1"
	nsVeth        = "198.18.0.2"
	dataLBIP      = "198.18.9.9"
	dataGatewayIP = "198.19.0.90"
)

// TestHelperGateway is not a test: run inside the network namespace with
// ROUTE_ADDRESS_GATEWAY set, it serves HTTP on :80 and answers with the
// Host header it saw, until killed.
func TestHelperGateway(t *testing.T) {
	if os.Getenv("ROUTE_ADDRESS_GATEWAY") == "" {
		t.Skip("helper process for TestDataPath")
	}
	err := http.ListenAndServe(":80", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "gateway saw host=%s", r.Host)
	}))
	t.Fatal(err)
}

type netns struct {
	name, veth string
	gateway    *exec.Cmd
}

func sh(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func setupNetns(t *testing.T) *netns {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the data path needs root to create a network namespace")
	}
	n := &netns{name: fmt.Sprintf("ra-e2e-%d", os.Getpid()), veth: fmt.Sprintf("rah%d", os.Getpid()%100000)}
	peer := n.veth + "n"
	t.Cleanup(func() {
		if n.gateway != nil && n.gateway.Process != nil {
			_ = n.gateway.Process.Kill()
			_ = n.gateway.Wait()
		}
		_ = exec.Command("ip", "route", "del", dataLBIP+"/32").Run()
		_ = exec.Command("ip", "route", "del", dataGatewayIP+"/32").Run()
		_ = exec.Command("ip", "link", "del", n.veth).Run()
		_ = exec.Command("ip", "netns", "del", n.name).Run()
	})
	sh(t, "ip", "netns", "add", n.name)
	sh(t, "ip", "link", "add", n.veth, "type", "veth", "peer", "name", peer)
	sh(t, "ip", "link", "set", peer, "netns", n.name)
	sh(t, "ip", "addr", "add", hostVeth+"/30", "dev", n.veth)
	sh(t, "ip", "link", "set", n.veth, "up")
	in := func(args ...string) { sh(t, append([]string{"ip", "netns", "exec", n.name}, args...)...) }
	in("ip", "addr", "add", nsVeth+"/30", "dev", peer)
	in("ip", "link", "set", peer, "up")
	in("ip", "link", "set", "lo", "up")
	in("ip", "addr", "add", dataLBIP+"/32", "dev", "lo")
	in("ip", "addr", "add", dataGatewayIP+"/32", "dev", "lo")
	in("ip", "route", "add", "default", "via", hostVeth)
	sh(t, "ip", "route", "add", dataLBIP+"/32", "via", nsVeth)
	sh(t, "ip", "route", "add", dataGatewayIP+"/32", "via", nsVeth)

	n.gateway = exec.Command("ip", "netns", "exec", n.name, os.Args[0], "-test.run=^TestHelperGateway$")
	n.gateway.Env = append(os.Environ(), "ROUTE_ADDRESS_GATEWAY=1")
	if err := n.gateway.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the gateway stand-in to listen", func() error {
		c, err := net.DialTimeout("tcp", dataLBIP+":80", time.Second)
		if err == nil {
			c.Close()
		}
		return err
	})
	return n
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
	setMode(t, config.ModeExternalName, config.FallbackEnabled)
	route(t, ns, "byip")
	setLoadBalancer(t, ns, "byip", ipEntry(dataLBIP))
	route(t, ns, "byname", "tag")
	setLoadBalancer(t, ns, "byname", internalEntry(fmt.Sprintf(gwDomain, gw)))

	for _, mode := range config.Modes {
		setMode(t, mode, config.FallbackEnabled)
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
