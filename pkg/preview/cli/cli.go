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
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	netclient "knative.dev/networking/pkg/client/clientset/versioned"
	servingclient "knative.dev/serving/pkg/client/clientset/versioned"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/preview"
)

// ExitBlocked is plan's exit code when switching the mode now is not safe.
const ExitBlocked = 2

// ExitInvalidAnnotation is the exit code of plan and status when a
// Namespace in scope has a route-address-mode annotation that is not a
// mode.
const ExitInvalidAnnotation = 5

// NewClients is how Main gets its clients from kubectl's standard flags
// (--kubeconfig, --context, -n, --as, --request-timeout, ...); tests
// replace it. It returns the namespace the flags and kubeconfig select.
var NewClients = func(flags genericclioptions.RESTClientGetter) (preview.Clients, string, error) {
	cfg, err := flags.ToRESTConfig()
	if clientcmd.IsEmptyConfig(err) {
		return preview.Clients{}, "", fmt.Errorf("no cluster configured: %w", err)
	}
	if err != nil {
		return preview.Clients{}, "", err
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
	// warn prints a warning on stderr, once per message.
	warn func(string)
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
	var usage usageError
	if errors.As(err, &usage) {
		fmt.Fprintf(stderr, "See '%s --help' for usage.\n", usage.command)
	}
	return 1
}

// usageError is a command line the command does not accept: Main follows
// it with kubectl's hint.
type usageError struct {
	error
	command string
}

func (e usageError) Unwrap() error { return e.error }

// usage makes err a usageError of cmd.
func usage(cmd *cobra.Command, err error) error {
	if err == nil {
		return nil
	}
	return usageError{err, cmd.CommandPath()}
}

// noArgs is cobra.NoArgs as a usageError.
func noArgs(cmd *cobra.Command, args []string) error {
	return usage(cmd, cobra.NoArgs(cmd, args))
}

// NewCommand builds the kubectl route-address command tree.
func NewCommand(stdout, stderr io.Writer) *cobra.Command {
	warned := map[string]bool{}
	o := &options{kube: genericclioptions.NewConfigFlags(true), warn: func(msg string) {
		if !warned[msg] {
			warned[msg] = true
			fmt.Fprintln(stderr, "Warning:", msg)
		}
	}}
	root := &cobra.Command{
		Use: "kubectl-route_address",
		// As kubectl shows plugins: kubectl route-address.
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl route-address"},
		Short:       "Preview, follow and clean up route-address-mode switches of Knative Serving",
		Long: `kubectl route-address shows what the route-address controller of Knative
Serving would do to every Route's cluster-local Services, with the
controller's own resources and planner. plan, status and version only read
(get and list); cleanup writes.`,
		Example: `  # What switching every Route to EndpointsAndSlices would do
  kubectl route-address plan --mode endpointsandslices -A

  # Follow a switch until every name has the configured mode's shape
  kubectl route-address status --watch -A`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usage(cmd, fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath()))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(usage)
	flags := root.PersistentFlags()
	o.kube.AddFlags(flags)
	flags.BoolVarP(&o.all, "all-namespaces", "A", false, "Routes of every namespace")
	flags.StringVarP(&o.output, "output", "o", "", "Output format. One of: (json, yaml, name); each command says which it prints")
	flags.StringVar(&o.systemNS, "system-namespace", "knative-serving", "Namespace of config-network and config-domain")

	var mode, fallback string
	plan := &cobra.Command{
		Use:   "plan --mode MODE",
		Short: "Show the operations switching to a mode would make",
		Long: fmt.Sprintf(`Show, per Route, each name's shape now and after a switch to MODE, the
ordered operations, Service recreates, ExternalName fallbacks and objects
the Route does not control. MODE is one of %s. It only reads.

-o json and -o yaml print the whole plan; -o name the Routes the switch
would write to.

Exit status: 0 when the switch can go ahead and every name will have the
mode's shape; %d when switching now is not safe (serving's controller is
rolling out, or runs without route-address); %d when it can go ahead but
names are held by objects their Routes do not control (NotOwned: listed,
left alone); %d when a Namespace in scope has a route-address-mode
annotation that is not a mode (listed: the controller leaves its Routes'
names as they are); 1 on errors.`, joined(netcfg.RouteAddressModes), ExitBlocked, ExitNotOwned, ExitInvalidAnnotation),
		Example: `  # Every Route of the cluster
  kubectl route-address plan --mode endpointsandslices -A

  # One namespace, with the fallback disabled, as YAML
  kubectl route-address plan --mode endpointslices --externalname-fallback disabled -n team-a -o yaml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(o.output, outputJSON, outputYAML, outputName); err != nil {
				return usage(cmd, err)
			}
			if mode == "" {
				return usage(cmd, fmt.Errorf("--mode is required; allowed values are %s", joined(netcfg.RouteAddressModes)))
			}
			if _, err := netcfg.NewConfigFromMap(map[string]string{netcfg.RouteAddressModeKey: mode}); err != nil {
				return usage(cmd, fmt.Errorf("bad flag: --mode %q, allowed values are %s", mode, joined(netcfg.RouteAddressModes)))
			}
			cfg, err := netcfg.NewConfigFromMap(map[string]string{netcfg.RouteAddressModeKey: mode, netcfg.RouteAddressExternalNameFallbackKey: fallback})
			if err != nil {
				return usage(cmd, fmt.Errorf("bad flag: --externalname-fallback %q, allowed values are %s", fallback, joined(netcfg.RouteAddressFallbacks)))
			}
			clients, scope, err := o.connect()
			if err != nil {
				return err
			}
			rep, err := clients.Plan(cmd.Context(), scope, cfg)
			if err != nil {
				return err
			}
			touched := func() []string {
				var out []string
				for _, r := range rep.Routes {
					if len(r.Operations) > 0 {
						out = append(out, routeName(r.Route))
					}
				}
				return out
			}
			if err := (report{rep, rep.WriteTable, touched}).print(stdout, o.output); err != nil {
				return err
			}
			switch {
			case rep.SwitchBlocked != "":
				return exitError{ExitBlocked}
			case len(rep.InvalidNamespaces) > 0:
				return exitError{ExitInvalidAnnotation}
			case rep.Summary.Blocked > 0:
				return exitError{ExitNotOwned}
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
controller and what a rollback would leave. It only reads. -o json and
-o yaml print all of it; -o name the Routes in scope.

With --watch, follow a switch instead: every --interval, the names that
have the configured mode's shape (the controller has nothing left to do
for them) of all names, the operations left, the rate at which they go
down and the time left at that rate; a progress bar on a terminal, one
line per interval otherwise, one JSON object per line with -o json. A
read that fails for a passing reason (the apiserver unreachable,
overloaded or failing) is retried, with a warning on stderr.

Exit status: 0 (with --watch: once every name has the mode's shape); with
--watch, %d once the controller has nothing left to do but names are held
by objects their Routes do not control (NotOwned: listed, left alone), %d
when --timeout passes first (the names left are listed); without --watch,
%d when a Namespace in scope has a route-address-mode annotation that is
not a mode (listed; with --watch its names are left, as held); 1 on
errors.`, ExitNotOwned, ExitTimeout, ExitInvalidAnnotation),
		Example: `  # The Routes of the current namespace
  kubectl route-address status

  # Follow a switch of the whole cluster for at most an hour, as JSON lines
  kubectl route-address status --watch -A --timeout 1h -o json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if watching {
				if err := checkOutput(o.output, outputJSON); err != nil {
					return usage(cmd, fmt.Errorf("--watch: %w", err))
				}
				if wo.interval <= 0 {
					return usage(cmd, fmt.Errorf("--interval must be greater than 0, not %v", wo.interval))
				}
				if wo.timeout < 0 {
					return usage(cmd, fmt.Errorf("--timeout must be 0 (never) or greater, not %v", wo.timeout))
				}
			} else if err := checkOutput(o.output, outputJSON, outputYAML, outputName); err != nil {
				return usage(cmd, err)
			}
			clients, scope, err := o.connect()
			if err != nil {
				return err
			}
			if watching {
				return watch(cmd.Context(), clients, scope, wo, o.output, stdout, stderr)
			}
			st, err := clients.Status(cmd.Context(), scope)
			if err != nil {
				return err
			}
			routes := func() []string {
				out := make([]string, len(st.Routes))
				for i, r := range st.Routes {
					out[i] = routeName(r.Route)
				}
				return out
			}
			if err := (report{st, st.WriteTable, routes}).print(stdout, o.output); err != nil {
				return err
			}
			if len(st.InvalidNamespaces) > 0 {
				return exitError{ExitInvalidAnnotation}
			}
			return nil
		},
	}
	status.Flags().BoolVarP(&watching, "watch", "w", false, "Follow a switch until every name has the configured mode's shape")
	status.Flags().DurationVar(&wo.interval, "interval", 2*time.Second, "With --watch: how often to read the cluster (greater than 0)")
	status.Flags().DurationVar(&wo.timeout, "timeout", 0, "With --watch: give up after this long (0: never)")
	status.Flags().BoolVar(&wo.perNamespace, "per-namespace", false, "With --watch: the count of each namespace too")

	dryRun := string(preview.DryRunNone)
	var wait time.Duration
	cleanup := &cobra.Command{
		Use:   "cleanup",
		Short: "Remove what route-address left behind after a rollback without switching to ExternalName first",
		Long: `After serving's stock controller replaced route-address while a managed
route-address-mode was set, our EndpointSlices and the marks on our
Endpoints stay (with an IP load balancer they keep its address of that
moment). cleanup takes the marks off (kube-controller-manager then mirrors
the Endpoints upstream keeps) and deletes each of our slices once
something else serves its name. It writes (unlike plan and status), and
refuses while a route-address controller runs.

--dry-run=client only prints what would be done; --dry-run=server sends
the writes as server-side dry runs (admission runs, nothing is stored).
-o json and -o yaml print the report.`,
		Example: `  # What cleanup would do in every namespace
  kubectl route-address cleanup -A --dry-run=client

  # Do it in one namespace
  kubectl route-address cleanup -n team-a`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(o.output, outputJSON, outputYAML); err != nil {
				return usage(cmd, err)
			}
			dr := preview.DryRun(dryRun)
			if !slices.Contains(preview.DryRuns, dr) {
				return usage(cmd, fmt.Errorf(`Invalid dry-run value (%s). Must be "none", "server", or "client".`, dryRun))
			}
			clients, scope, err := o.connect()
			if err != nil {
				return err
			}
			rep, err := clients.Cleanup(cmd.Context(), scope, dr, wait)
			if err != nil {
				return err
			}
			return report{value: rep, table: rep.WriteTable}.print(stdout, o.output)
		},
	}
	cleanup.Flags().StringVar(&dryRun, "dry-run", dryRun, `Must be "none", "server", or "client". If client, only print what would be done; if server, send the writes as server-side dry runs`)
	cleanup.Flags().Lookup("dry-run").NoOptDefVal = string(preview.DryRunClient)
	cleanup.Flags().DurationVar(&wait, "wait", 10*time.Second, "How long to wait for kube-controller-manager to mirror an Endpoints before keeping our slice")

	version := &cobra.Command{
		Use:   "version",
		Short: "Print the plugin's version",
		Long:  "Print the plugin's version, the commit it was built from, and its Go version and platform. -o json and -o yaml print them as fields.",
		Example: `  kubectl route-address version
  kubectl route-address version -o json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(o.output, outputJSON, outputYAML); err != nil {
				return usage(cmd, err)
			}
			v := buildVersion()
			return report{value: v, table: func(w io.Writer) { fmt.Fprintln(w, v) }}.print(stdout, o.output)
		},
	}
	root.AddCommand(plan, status, cleanup, version)
	return root
}

// connect checks the shared flags and makes the clients.
func (o *options) connect() (preview.Clients, preview.Scope, error) {
	clients, ns, err := NewClients(o.kube)
	if err != nil {
		return clients, preview.Scope{}, err
	}
	clients.Warn = o.warn
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
