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

package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"
)

// The data path: a stand-in for the ingress's internal gateway runs inside
// a network namespace, joined to the host by a veth pair on 198.18.0.0/30
// (a range this machine does not use). The addresses a Route's load
// balancer names (an IP, the ClusterIP of a gateway Service) are assigned
// inside the namespace and routed to it, so a client that resolves the
// Route's name through CoreDNS, or an ingress that reads its endpoints,
// reaches the stand-in without kube-proxy. Traffic goes only to these
// addresses. Endpoints may not hold loopback addresses, hence all this.
const (
	hostVeth = "198.18.0.1"
	nsVeth   = "198.18.0.2"
)

// Netns is a network namespace holding the gateway stand-in.
type Netns struct {
	name, veth string
	addrs      []string
	gateway    *exec.Cmd
}

// StartNetns creates the namespace, answering HTTP on port 80 of each of
// addrs with the gateway program gatewayBin (test/cmd/gateway). It needs
// root. Close removes everything it made.
func StartNetns(ctx context.Context, gatewayBin string, addrs ...string) (n *Netns, err error) {
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("a network namespace needs root")
	}
	n = &Netns{name: fmt.Sprintf("ra-%d", os.Getpid()), veth: fmt.Sprintf("rah%d", os.Getpid()%100000), addrs: addrs}
	defer func() {
		if err != nil {
			n.Close()
		}
	}()
	peer := n.veth + "n"
	in := func(args ...string) []string { return append([]string{"ip", "netns", "exec", n.name}, args...) }
	steps := [][]string{
		{"ip", "netns", "add", n.name},
		{"ip", "link", "add", n.veth, "type", "veth", "peer", "name", peer},
		{"ip", "link", "set", peer, "netns", n.name},
		{"ip", "addr", "add", hostVeth + "/30", "dev", n.veth},
		{"ip", "link", "set", n.veth, "up"},
		in("ip", "addr", "add", nsVeth+"/30", "dev", peer),
		in("ip", "link", "set", peer, "up"),
		in("ip", "link", "set", "lo", "up"),
	}
	for _, a := range addrs {
		steps = append(steps, in("ip", "addr", "add", a+"/32", "dev", "lo"))
	}
	steps = append(steps, in("ip", "route", "add", "default", "via", hostVeth))
	for _, a := range addrs {
		steps = append(steps, []string{"ip", "route", "add", a + "/32", "via", nsVeth})
	}
	for _, s := range steps {
		if out, err := exec.CommandContext(ctx, s[0], s[1:]...).CombinedOutput(); err != nil {
			return n, fmt.Errorf("%s: %w: %s", strings.Join(s, " "), err, out)
		}
	}
	n.gateway = exec.Command("ip", in(gatewayBin)[1:]...)
	if err := n.gateway.Start(); err != nil {
		return n, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addrs[0]+":80", time.Second)
		if err == nil {
			c.Close()
			return n, nil
		}
		if time.Now().After(deadline) {
			return n, fmt.Errorf("the gateway stand-in does not listen: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Close stops the gateway and removes the routes, the veth pair and the
// namespace.
func (n *Netns) Close() {
	if n.gateway != nil && n.gateway.Process != nil {
		_ = n.gateway.Process.Kill()
		_ = n.gateway.Wait()
	}
	for _, a := range n.addrs {
		_ = exec.Command("ip", "route", "del", a+"/32").Run()
	}
	_ = exec.Command("ip", "link", "del", n.veth).Run()
	_ = exec.Command("ip", "netns", "del", n.name).Run()
}
