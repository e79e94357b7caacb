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

// localcluster runs the local control plane and the controller until
// interrupted: the engine of hack/demo.sh.
//
//	localcluster -dir DIR -controller BIN [-gateway BIN -gateway-ips IP,...] [-skipper]
//
// It writes DIR/env (KUBECONFIG, DNS, and with -skipper the addresses of
// SKIPPER_ENDPOINTS and SKIPPER_ENDPOINTSLICES; DATA_PATH=1 when the
// gateway stand-in runs) once everything is up, and stops everything on
// SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"knative.dev/route-address/test/cluster"
)

func main() {
	dir := flag.String("dir", "", "directory for certificates, data and logs")
	controller := flag.String("controller", "", "controller binary to run against the cluster")
	gateway := flag.String("gateway", "", "gateway stand-in binary (test/cmd/gateway) to answer inside a network namespace (needs root)")
	gatewayIPs := flag.String("gateway-ips", "", "comma-separated addresses the gateway stand-in answers on")
	skipper := flag.Bool("skipper", false, "also run Skipper twice: reading v1 Endpoints (its default) and reading EndpointSlices")
	flag.Parse()
	if *dir == "" || *controller == "" {
		log.Fatal("usage: localcluster -dir DIR -controller BIN")
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()

	c, err := cluster.Start(ctx, *dir)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Stop()
	ctrl, err := cluster.StartController(c, *controller)
	if err != nil {
		log.Fatal(err)
	}
	defer cluster.Stop(ctrl)

	env := fmt.Sprintf("KUBECONFIG=%s\nDNS=%s\nAUDIT_LOG=%s\nCONTROLLER_LOG=%s\n",
		c.Kubeconfig, c.DNS, c.AuditLog, filepath.Join(*dir, "controller.log"))
	if *gateway != "" {
		n, err := cluster.StartNetns(ctx, *gateway, strings.Split(*gatewayIPs, ",")...)
		if err != nil {
			log.Printf("no data path: %v", err)
		} else {
			defer n.Close()
			env += "DATA_PATH=1\n"
		}
	}
	if *skipper {
		for _, slices := range []bool{false, true} {
			s, err := c.StartSkipper(ctx, slices)
			if err != nil {
				log.Fatal(err)
			}
			env += fmt.Sprintf("SKIPPER_%s=%s\n", strings.ToUpper(s.Name), s.Address)
		}
	}
	if err := os.WriteFile(filepath.Join(*dir, "env"), []byte(env), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("control plane and controller are up; kubeconfig %s, CoreDNS %s", c.Kubeconfig, c.DNS)
	<-ctx.Done()
}
