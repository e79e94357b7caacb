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
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/preview/cli"
	"knative.dev/route-address/test/cluster"
)

// TestPluginRoles: config/210-plugin-clusterroles.yaml is what a person
// needs to run the plugin. A user bound to route-address-plugin-reader
// alone runs plan and status over every namespace (impersonated, as
// kubectl --as does), and cleanup's client-side dry run; one bound to it in
// the Routes' namespace, the system namespace and the gateway's namespace
// plans and watches that namespace with -n; a user bound to nothing is
// told which permission is missing.
func TestPluginRoles(t *testing.T) {
	needLocal(t)
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", "198.19.0.150", 80)
	ns := namespace(t, "plugin-rbac")
	route(t, ns, "hello")
	setLoadBalancer(t, ns, "hello", internalEntry(fmt.Sprintf(gwDomain, gw)))

	user := fmt.Sprintf("plugin-user-%s", ns)
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "route-address-plugin-reader"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := env.kube.RbacV1().ClusterRoleBindings().Create(bg(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.kube.RbacV1().ClusterRoleBindings().Delete(bg(), user, metav1.DeleteOptions{}) })

	plugin := func(as string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := cli.Main(context.Background(), append(args, "--kubeconfig", env.local.Kubeconfig, "--as", as), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	// RBAC takes a moment to see a new binding.
	eventually(t, "status -A as the reader", func() error {
		if code, out, errOut := plugin(user, "status", "-A"); code != 0 || !strings.Contains(out, ns) {
			return fmt.Errorf("exit %d, stderr %q", code, errOut)
		}
		return nil
	})
	for _, args := range [][]string{
		{"plan", "--mode", "endpointsandslices", "-A"},
		{"plan", "--mode", "endpointslices", "-n", ns, "-o", "name"},
		{"status", "-n", ns, "-o", "yaml"},
	} {
		code, _, errOut := plugin(user, args...)
		if code != 0 && code != cli.ExitNotOwned {
			t.Errorf("%v as the reader: exit %d, stderr %q", args, code, errOut)
		}
	}
	// cleanup's client-side dry run reads only.
	if code, out, errOut := plugin(user, "cleanup", "-n", ns, "--dry-run=client"); code != 0 {
		t.Errorf("cleanup --dry-run=client as the reader: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// A user whose role is bound in the Routes' namespace, in the system
	// namespace and in the gateway's namespace only: -n plans and
	// watches the namespace, -A is refused.
	scoped := "scoped-" + user
	for _, in := range []string{ns, gw, cluster.SystemNamespace} {
		rb := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: scoped},
			RoleRef:    binding.RoleRef,
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: scoped}},
		}
		if _, err := env.kube.RbacV1().RoleBindings(in).Create(bg(), rb, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.kube.RbacV1().RoleBindings(in).Delete(bg(), scoped, metav1.DeleteOptions{}) })
	}
	eventually(t, "status --watch -n as the namespace's reader", func() error {
		if code, out, errOut := plugin(scoped, "status", "--watch", "-n", ns, "--timeout", "30s"); code != 0 || !strings.Contains(out, "1/1 names done") {
			return fmt.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
		}
		return nil
	})
	// Bound in the namespace, the role reads that Namespace too (a get of
	// a Namespace is authorized in it): plan sees its annotation.
	annotateMode(t, ns, string(netcfg.RouteAddressModeExternalName))
	if code, out, errOut := plugin(scoped, "plan", "--mode", "endpointsandslices", "-n", ns); code != 0 || !strings.Contains(out, "hello") ||
		!strings.Contains(out, "Namespaces with a mode of their own (annotation networking.knative.dev/route-address-mode): "+ns+"=externalname") {
		t.Errorf("plan -n as the namespace's reader: exit %d, stdout %q, stderr %q; want exit 0, the Route, and the Namespace's mode", code, out, errOut)
	}
	annotateMode(t, ns, "")
	if code, _, errOut := plugin(scoped, "status", "--watch", "-A"); code != 1 || !strings.Contains(errOut, "permission denied to list") {
		t.Errorf("status --watch -A as the namespace's reader: exit %d, stderr %q; want 1 and permission denied", code, errOut)
	}

	code, _, errOut := plugin("nobody-"+ns, "status", "-A")
	if code != 1 || !strings.Contains(errOut, "permission denied to list Routes") {
		t.Errorf("status -A as a user bound to nothing: exit %d, stderr %q; want permission denied to list Routes", code, errOut)
	}
}
