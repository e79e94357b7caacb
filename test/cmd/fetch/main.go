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

// fetch is the node's client pod: it resolves each name given through the
// pod's resolver (kubelet's resolv.conf, the cluster's DNS) and sends an
// HTTP GET for the name to port 80 of each address it resolves to (both
// families, where it has both), and writes one line per name, "NAME
// CNAME=… A=…,… HTTP=… …" (an answer per address, in the order of A; or
// ERR=…), to its termination message, where a test reads it from the
// pod's status.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"
)

func main() {
	var out strings.Builder
	for _, name := range os.Args[1:] {
		fmt.Fprintln(&out, fetch(name))
	}
	fmt.Print(out.String())
	_ = os.WriteFile("/dev/termination-log", []byte(out.String()), 0o644)
}

func fetch(name string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	line := name
	if cname, err := net.DefaultResolver.LookupCNAME(ctx, name); err == nil && strings.TrimSuffix(cname, ".") != name {
		line += " CNAME=" + strings.TrimSuffix(cname, ".")
	}
	addrs, err := net.DefaultResolver.LookupHost(ctx, name)
	if err != nil {
		return line + " ERR=" + err.Error()
	}
	sort.Strings(addrs)
	line += " A=" + strings.Join(addrs, ",")
	for _, a := range addrs {
		line += " " + get(ctx, name, a)
	}
	return line
}

// get sends GET / for host to port 80 of addr.
func get(ctx context.Context, host, addr string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(addr, "80")+"/", nil)
	if err != nil {
		return "ERR=" + err.Error()
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "ERR=" + err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("HTTP=%d %q", resp.StatusCode, body)
}
