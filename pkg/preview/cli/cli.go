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

// Package cli parses the kubectl-route_address command line and runs the
// preview.
package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	netclient "knative.dev/networking/pkg/client/clientset/versioned"
	servingclient "knative.dev/serving/pkg/client/clientset/versioned"

	"knative.dev/route-address/pkg/preview"
	"knative.dev/route-address/pkg/reconciler/routeaddress/config"
)

const usage = `kubectl route-address: preview route-address-mode changes.

Usage:
  kubectl route-address plan --mode MODE [--externalname-fallback Enabled|Disabled] [-n NS | -A] [-o table|json]
  kubectl route-address status [-n NS | -A] [-o table|json]

MODE is one of ExternalName, Endpoints, EndpointSlices, EndpointsAndSlices.
plan exits 0 when nothing blocks the plan, 2 when an object the Route does
not control stands in the way, 1 on errors.
Common flags: --kubeconfig FILE, --context NAME, --system-namespace NS (knative-serving).
`

// ExitBlocked is plan's exit code when the plan has blocking items.
const ExitBlocked = 2

// NewClients is how Main gets its clients; tests replace it.
var NewClients = func(kubeconfig, context string) (preview.Clients, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return preview.Clients{}, "", fmt.Errorf("no cluster configured: %w", err)
	}
	// Reading Endpoints draws the apiserver's deprecation warning; it says
	// nothing about what the plugin shows.
	cfg.WarningHandler = rest.NoWarnings{}
	ns, _, err := cc.Namespace()
	if err != nil {
		return preview.Clients{}, "", err
	}
	c := preview.Clients{Server: cfg.Host}
	if c.Kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return c, "", err
	}
	if c.Serving, err = servingclient.NewForConfig(cfg); err != nil {
		return c, "", err
	}
	if c.Net, err = netclient.NewForConfig(cfg); err != nil {
		return c, "", err
	}
	return c, ns, nil
}

// Main runs the plugin and returns its exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	cmd := args[0]
	fs := flag.NewFlagSet("kubectl route-address "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		kubeconfig, kcontext, ns, out, mode, fallback, systemNS string
		all                                                     bool
	)
	fs.StringVar(&kubeconfig, "kubeconfig", "", "path to the kubeconfig file")
	fs.StringVar(&kcontext, "context", "", "kubeconfig context to use")
	fs.StringVar(&ns, "namespace", "", "namespace of the Routes (default: the context's)")
	fs.StringVar(&ns, "n", "", "shorthand for --namespace")
	fs.BoolVar(&all, "all-namespaces", false, "Routes of every namespace")
	fs.BoolVar(&all, "A", false, "shorthand for --all-namespaces")
	fs.StringVar(&out, "output", "table", "table or json")
	fs.StringVar(&out, "o", "table", "shorthand for --output")
	fs.StringVar(&systemNS, "system-namespace", "knative-serving", "namespace of config-network and config-domain")
	if cmd == "plan" {
		fs.StringVar(&mode, "mode", "", "the route-address-mode to preview (required)")
		fs.StringVar(&fallback, "externalname-fallback", string(config.FallbackEnabled), "the route-address-externalname-fallback to preview")
	} else if cmd != "status" {
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", cmd, usage)
		return 1
	}
	if err := fs.Parse(args[1:]); err != nil {
		return 1
	}
	if out != "table" && out != "json" {
		fmt.Fprintf(stderr, "--output: unknown value %q, allowed values are table, json\n", out)
		return 1
	}
	var cfg *config.RouteAddress
	if cmd == "plan" {
		if mode == "" {
			fmt.Fprintf(stderr, "--mode is required; allowed values are %s\n", joined(config.Modes))
			return 1
		}
		var err error
		cfg, err = config.NewRouteAddressFromMap(map[string]string{config.ModeKey: mode, config.ExternalNameFallbackKey: fallback})
		if err != nil {
			fmt.Fprintf(stderr, "bad flag: %v\n", strings.NewReplacer(config.ModeKey, "--mode", config.ExternalNameFallbackKey, "--externalname-fallback").Replace(err.Error()))
			return 1
		}
	}

	clients, ctxNS, err := NewClients(kubeconfig, kcontext)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	if ns == "" {
		ns = ctxNS
	}
	if ns == "" {
		ns = "default"
	}
	scope := preview.Scope{Namespace: ns, AllNamespaces: all, SystemNamespace: systemNS}

	if cmd == "status" {
		st, err := clients.Status(ctx, scope)
		if err != nil {
			fmt.Fprintln(stderr, "error:", err)
			return 1
		}
		if out == "json" {
			return write(stderr, st.WriteJSON(stdout))
		}
		st.WriteTable(stdout)
		return 0
	}
	rep, err := clients.Plan(ctx, scope, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	if out == "json" {
		if code := write(stderr, rep.WriteJSON(stdout)); code != 0 {
			return code
		}
	} else {
		rep.WriteTable(stdout)
	}
	if rep.Summary.Blocked > 0 {
		return ExitBlocked
	}
	return 0
}

func write(stderr io.Writer, err error) int {
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	return 0
}

func joined(ms []config.Mode) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}
