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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	netclient "knative.dev/networking/pkg/client/clientset/versioned"
	servingclient "knative.dev/serving/pkg/client/clientset/versioned"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/preview"
)

// ExitBlocked is plan's exit code when the plan has blocking items.
const ExitBlocked = 2

// NewClients is how Main gets its clients from kubectl's standard flags
// (--kubeconfig, --context, -n, --as, --request-timeout, ...); tests
// replace it. It returns the namespace the flags and kubeconfig select.
var NewClients = func(flags genericclioptions.RESTClientGetter) (preview.Clients, string, error) {
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return preview.Clients{}, "", fmt.Errorf("no cluster configured: %w", err)
	}
	// Reading Endpoints draws the apiserver's deprecation warning; it says
	// nothing about what the plugin shows.
	cfg.WarningHandler = rest.NoWarnings{}
	ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
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

// exitError carries an exit code other than 1.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// options are the flags every command shares.
type options struct {
	kube     *genericclioptions.ConfigFlags
	all      bool
	output   string
	systemNS string
}

// Main runs the plugin and returns its exit code: 0, ExitBlocked for a
// plan that something blocks, 1 on errors. --help exits 0.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := NewCommand(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	var exit exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.code
	}
	fmt.Fprintln(stderr, "error:", err)
	return 1
}

// NewCommand builds the kubectl route-address command tree.
func NewCommand(stdout, stderr io.Writer) *cobra.Command {
	o := &options{kube: genericclioptions.NewConfigFlags(true)}
	root := &cobra.Command{
		Use: "kubectl-route_address",
		// As kubectl shows plugins: kubectl route-address.
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl route-address"},
		Short:       "Preview route-address-mode changes of Knative Serving",
		Long: `kubectl route-address shows what the route-address controller would do
to every Route's cluster-local Services, with its own resources and planner
and only get/list reads.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	flags := root.PersistentFlags()
	o.kube.AddFlags(flags)
	flags.BoolVarP(&o.all, "all-namespaces", "A", false, "Routes of every namespace")
	flags.StringVarP(&o.output, "output", "o", "table", "Output format: table or json")
	flags.StringVar(&o.systemNS, "system-namespace", "knative-serving", "Namespace of config-network and config-domain")

	var mode, fallback string
	plan := &cobra.Command{
		Use:   "plan --mode MODE",
		Short: "Show the operations switching to a mode would make",
		Long: fmt.Sprintf(`Show, per Route, each name's shape now and after a switch to MODE, the
ordered operations, Service recreates, ExternalName fallbacks and objects
the Route does not control. MODE is one of %s.

Exit status: 0 when nothing blocks the plan, %d when an object the Route
does not control stands in the way, 1 on errors.`, joined(netcfg.RouteAddressModes), ExitBlocked),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if mode == "" {
				return fmt.Errorf("--mode is required; allowed values are %s", joined(netcfg.RouteAddressModes))
			}
			if _, err := netcfg.NewConfigFromMap(map[string]string{netcfg.RouteAddressModeKey: mode}); err != nil {
				return fmt.Errorf("bad flag: --mode %q, allowed values are %s", mode, joined(netcfg.RouteAddressModes))
			}
			cfg, err := netcfg.NewConfigFromMap(map[string]string{netcfg.RouteAddressModeKey: mode, netcfg.RouteAddressExternalNameFallbackKey: fallback})
			if err != nil {
				return fmt.Errorf("bad flag: --externalname-fallback %q, allowed values are %s", fallback, joined(netcfg.RouteAddressFallbacks))
			}
			clients, scope, err := o.connect()
			if err != nil {
				return err
			}
			rep, err := clients.Plan(cmd.Context(), scope, cfg)
			if err != nil {
				return err
			}
			if o.output == "json" {
				if err := rep.WriteJSON(stdout); err != nil {
					return err
				}
			} else {
				rep.WriteTable(stdout)
			}
			if rep.Summary.Blocked > 0 {
				return exitError{ExitBlocked}
			}
			return nil
		},
	}
	plan.Flags().StringVar(&mode, "mode", "", "The route-address-mode to preview (required)")
	plan.Flags().StringVar(&fallback, "externalname-fallback", string(netcfg.RouteAddressFallbackEnabled), "The route-address-externalname-fallback to preview")

	var watching bool
	var wo watchOptions
	status := &cobra.Command{
		Use:   "status",
		Short: "Show the configured mode and each Route Service's shape",
		Long: fmt.Sprintf(`Show the configured mode, each Route Service's shape, serving's
controller and what a rollback would leave.

With --watch, follow a switch instead: every --interval, the names that
have the configured mode's shape (the controller has nothing left to do
for them) of all names, the operations left, the rate at which they go
down and the time left at that rate; a progress bar on a terminal, one
line per interval otherwise, one JSON object per line with -o json.

Exit status: 0 (with --watch: once every name has the mode's shape), %d
with --watch when --timeout passes first (the names left are listed), 1 on
errors.`, ExitTimeout),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			clients, scope, err := o.connect()
			if err != nil {
				return err
			}
			if watching {
				return watch(cmd.Context(), clients, scope, wo, o.output, stdout)
			}
			st, err := clients.Status(cmd.Context(), scope)
			if err != nil {
				return err
			}
			if o.output == "json" {
				return st.WriteJSON(stdout)
			}
			st.WriteTable(stdout)
			return nil
		},
	}
	status.Flags().BoolVarP(&watching, "watch", "w", false, "Follow a switch until every name has the configured mode's shape")
	status.Flags().DurationVar(&wo.interval, "interval", 2*time.Second, "With --watch: how often to read the cluster")
	status.Flags().DurationVar(&wo.timeout, "timeout", 0, "With --watch: give up after this long (0: never)")
	status.Flags().BoolVar(&wo.perNamespace, "per-namespace", false, "With --watch: the count of each namespace too")
	var dryRun bool
	var wait time.Duration
	cleanup := &cobra.Command{
		Use:   "cleanup",
		Short: "Remove what route-address left behind after a rollback without switching to ExternalName first",
		Long: `After serving's stock controller replaced route-address while a managed
route-address-mode was set, our EndpointSlices and the marks on our
Endpoints stay (with an IP load balancer they keep its address of that
moment). cleanup takes the marks off (kube-controller-manager then mirrors
the Endpoints upstream keeps) and deletes each of our slices once
something else serves its name. It writes, unlike plan and status, and
refuses while a route-address controller runs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			clients, scope, err := o.connect()
			if err != nil {
				return err
			}
			rep, err := clients.Cleanup(cmd.Context(), scope, dryRun, wait)
			if err != nil {
				return err
			}
			if o.output == "json" {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			rep.WriteTable(stdout)
			return nil
		},
	}
	cleanup.Flags().BoolVar(&dryRun, "dry-run", false, "Only print what would be done")
	cleanup.Flags().DurationVar(&wait, "wait", 10*time.Second, "How long to wait for kube-controller-manager to mirror an Endpoints before keeping our slice")
	root.AddCommand(plan, status, cleanup)
	return root
}

// connect checks the shared flags and makes the clients.
func (o *options) connect() (preview.Clients, preview.Scope, error) {
	if o.output != "table" && o.output != "json" {
		return preview.Clients{}, preview.Scope{}, fmt.Errorf("--output: unknown value %q, allowed values are table, json", o.output)
	}
	clients, ns, err := NewClients(o.kube)
	if err != nil {
		return clients, preview.Scope{}, err
	}
	if ns == "" {
		ns = "default"
	}
	return clients, preview.Scope{Namespace: ns, AllNamespaces: o.all, SystemNamespace: o.systemNS}, nil
}

func joined[T ~string](ms []T) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}
