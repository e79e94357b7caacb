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
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

// withoutRule returns the rules without the verb on the resource (other
// verbs and resources of the same rule are kept).
func withoutRule(rules []rbacv1.PolicyRule, group, resource, verb string) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, r := range rules {
		if !slices.Contains(r.APIGroups, group) || !slices.Contains(r.Resources, resource) {
			out = append(out, r)
			continue
		}
		if others := slices.DeleteFunc(slices.Clone(r.Resources), func(s string) bool { return s == resource }); len(others) > 0 {
			rest := *r.DeepCopy()
			rest.Resources = others
			out = append(out, rest)
		}
		if verbs := slices.DeleteFunc(slices.Clone(r.Verbs), func(s string) bool { return s == verb }); len(verbs) > 0 {
			one := *r.DeepCopy()
			one.Resources, one.Verbs = []string{resource}, verbs
			out = append(out, one)
		}
	}
	return out
}

// TestLeastPrivilege: the controller runs as serving's controller
// ServiceAccount under serving v0.50.0's RBAC plus
// config/200-clusterrole.yaml, never as an administrator, so a rule the
// controller needs and these roles lack fails the suite. It shows that by
// taking "create endpointslices" out of both roles that grant it
// (knative-serving-core and ours): a Route in EndpointSlices mode then gets
// no slice, and a CreationFailed Warning says it was forbidden; with the
// rule back it converges.
func TestLeastPrivilege(t *testing.T) {
	needLocal(t)
	sa := "system:serviceaccount:" + cluster.SystemNamespace + ":" + cluster.ControllerServiceAccount
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", "198.19.0.43", 80)
	ns := namespace(t, "rbac")
	start := time.Now()
	route(t, ns, "ok")
	setLoadBalancer(t, ns, "ok", internalEntry(fmt.Sprintf(gwDomain, gw)))
	waitShape(t, ns, "ok", shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Slices: []string{"ok-ipv4 IPv4 198.19.0.43"}})
	time.Sleep(time.Second)
	for _, w := range auditWrites(t, start, ns) {
		if w.Agent() == "controller" && w.User.Username != sa {
			t.Errorf("the controller wrote %s %s %s as %q, want %q", w.Verb, w.ObjectRef.Resource, w.ObjectRef.Name, w.User.Username, sa)
		}
	}

	// Take the rule away.
	roles := []string{"knative-serving-core", "knative-serving-route-address"}
	saved := map[string][]rbacv1.PolicyRule{}
	for _, name := range roles {
		r, err := env.kube.RbacV1().ClusterRoles().Get(bg(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		saved[name] = r.Rules
		r.Rules = withoutRule(r.Rules, "discovery.k8s.io", "endpointslices", "create")
		if _, err := env.kube.RbacV1().ClusterRoles().Update(bg(), r, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	restore := func() {
		for _, name := range roles {
			r, err := env.kube.RbacV1().ClusterRoles().Get(bg(), name, metav1.GetOptions{})
			if err != nil {
				t.Error(err)
				continue
			}
			r.Rules = saved[name]
			if _, err := env.kube.RbacV1().ClusterRoles().Update(bg(), r, metav1.UpdateOptions{}); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(restore)
	eventually(t, cluster.AdminRole+" without create endpointslices", func() error {
		r, err := env.kube.RbacV1().ClusterRoles().Get(bg(), cluster.AdminRole, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, rule := range r.Rules {
			if slices.Contains(rule.APIGroups, "discovery.k8s.io") && slices.Contains(rule.Resources, "endpointslices") && slices.Contains(rule.Verbs, "create") {
				return fmt.Errorf("still granted")
			}
		}
		return nil
	})

	route(t, ns, "denied")
	setLoadBalancer(t, ns, "denied", internalEntry(fmt.Sprintf(gwDomain, gw)))
	var msg string
	eventually(t, "a CreationFailed Warning for the slice", func() error {
		l, err := env.kube.CoreV1().Events(ns).List(bg(), metav1.ListOptions{FieldSelector: "involvedObject.name=denied,reason=CreationFailed"})
		if err != nil {
			return err
		}
		for _, e := range l.Items {
			if strings.Contains(e.Message, "EndpointSlice") && strings.Contains(e.Message, "forbidden") {
				msg = e.Message
				return nil
			}
		}
		return fmt.Errorf("%d CreationFailed events", len(l.Items))
	})
	if s, err := observe(ns, "denied"); err == nil && len(s.Slices) > 0 {
		t.Errorf("a slice exists without the right to create it: %+v", s)
	}
	t.Logf("without create endpointslices: %s", msg)

	restore()
	waitShape(t, ns, "denied", shape{Type: corev1.ServiceTypeClusterIP, Headless: true, Slices: []string{"denied-ipv4 IPv4 198.19.0.43"}})
	t.Logf("with the rule back the Route converges")
}
