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

// xdsdump asks an xDS server for one resource type over an aggregated
// (ADS) stream, as an Envoy of the given cluster would at start-up, and
// prints the resources of the first response as one JSON object,
// {"resources": [...]}, each resource in protojson with the proto's field
// names (cluster_name, as Envoy's own config dump). For the e2e tests: what
// Envoy Gateway's control plane serves the Envoy of a Gateway (its node
// cluster is the Gateway's "namespace/name").
//
//	xdsdump -server 127.0.0.1:18000 -certs DIR -cluster ns/gateway -type cds|eds|rds|lds
//
// DIR holds tls.crt, tls.key and ca.crt: the client certificate
// `envoy-gateway certgen --local` writes for Envoy.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	core "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	discovery "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/protobuf/encoding/protojson"

	// The resource types a response carries, registered for protojson.
	_ "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
)

var typeURLs = map[string]string{
	"cds": "type.googleapis.com/envoy.config.cluster.v3.Cluster",
	"eds": "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment",
	"rds": "type.googleapis.com/envoy.config.route.v3.RouteConfiguration",
	"lds": "type.googleapis.com/envoy.config.listener.v3.Listener",
}

func main() {
	server := flag.String("server", "127.0.0.1:18000", "the xDS server, host:port")
	certs := flag.String("certs", "", "directory of the client's tls.crt, tls.key and ca.crt")
	cluster := flag.String("cluster", "", "the node's cluster: the Gateway's namespace/name")
	kind := flag.String("type", "eds", "cds, eds, rds or lds")
	timeout := flag.Duration("timeout", 5*time.Second, "how long to wait for the first response")
	flag.Parse()
	if err := dump(*server, *certs, *cluster, *kind, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "xdsdump:", err)
		os.Exit(1)
	}
}

func dump(server, certs, cluster, kind string, timeout time.Duration) error {
	typeURL, ok := typeURLs[kind]
	if !ok {
		return fmt.Errorf("-type %q: want cds, eds, rds or lds", kind)
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(certs, "tls.crt"), filepath.Join(certs, "tls.key"))
	if err != nil {
		return err
	}
	ca, err := os.ReadFile(filepath.Join(certs, "ca.crt"))
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return fmt.Errorf("%s: no certificate", filepath.Join(certs, "ca.crt"))
	}
	// The server's certificate names its Service, not loopback.
	creds := credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, ServerName: "envoy-gateway"})
	conn, err := grpc.NewClient(server, grpc.WithTransportCredentials(creds))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	stream, err := discovery.NewAggregatedDiscoveryServiceClient(conn).StreamAggregatedResources(ctx)
	if err != nil {
		return err
	}
	if err := stream.Send(&discovery.DiscoveryRequest{
		Node:    &core.Node{Id: "xdsdump", Cluster: cluster},
		TypeUrl: typeURL,
	}); err != nil {
		return err
	}
	resp, err := stream.Recv()
	if err != nil {
		return err
	}
	out := struct {
		Resources []json.RawMessage `json:"resources"`
	}{Resources: []json.RawMessage{}}
	for _, r := range resp.GetResources() {
		b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(r)
		if err != nil {
			return err
		}
		out.Resources = append(out.Resources, b)
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}
