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
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// SkipperVersion is the zalando/skipper version third_party/skipper builds
// (keep in step with hack/build-third-party.sh).
const SkipperVersion = "v0.27.54"

// SkipperNamespace holds Skipper's ServiceAccount.
const SkipperNamespace = "skipper-system"

// Skipper is a running Skipper ingress: a real ingress, written by somebody
// else, that refuses ExternalName backends (its default) and reads either
// v1 Endpoints (its default) or EndpointSlices.
type Skipper struct {
	// Name tells the instances apart ("endpoints", "endpointslices").
	Name string
	// Address is the proxy's listener, host:port on loopback.
	Address string
	// Support is the support listener (GET /routes prints the route table).
	Support string

	cmd *exec.Cmd
}

// skipperRules are the read rights Skipper's Kubernetes data client needs
// and no more.
var skipperRules = []rbacv1.PolicyRule{{
	APIGroups: []string{"networking.k8s.io"},
	Resources: []string{"ingresses"},
	Verbs:     []string{"get", "list", "watch"},
}, {
	APIGroups: []string{""},
	Resources: []string{"services", "endpoints"},
	Verbs:     []string{"get", "list", "watch"},
}, {
	APIGroups: []string{"discovery.k8s.io"},
	Resources: []string{"endpointslices"},
	Verbs:     []string{"get", "list", "watch"},
}, {
	APIGroups: []string{"zalando.org"},
	Resources: []string{"routegroups"},
	Verbs:     []string{"get", "list", "watch"},
}}

// skipperToken creates Skipper's ServiceAccount, its read-only ClusterRole
// and binding, and writes a token for it (valid for a day) to a file.
func (c *Cluster) skipperToken(ctx context.Context) (string, error) {
	token, err := c.serviceAccountToken(ctx, SkipperNamespace, "skipper", "skipper-read", skipperRules)
	if err != nil {
		return "", err
	}
	path := filepath.Join(c.Dir, "skipper.token")
	return path, os.WriteFile(path, []byte(token), 0o600)
}

// serviceAccountToken creates the namespace ns, the ServiceAccount ns/name,
// a ClusterRole role with rules bound to it (each kept if it exists), and
// returns a token for the ServiceAccount valid for a day.
func (c *Cluster) serviceAccountToken(ctx context.Context, ns, name, role string, rules []rbacv1.PolicyRule) (string, error) {
	kc := c.Client
	for _, create := range []func() error{
		func() error {
			_, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := kc.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := kc.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role}, Rules: rules}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := kc.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: role},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}},
			}, metav1.CreateOptions{})
			return err
		},
	} {
		if err := create(); err != nil && !apierrs.IsAlreadyExists(err) {
			return "", err
		}
	}
	tr, err := kc.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](24 * 3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("failed to request a token for %s/%s: %w", ns, name, err)
	}
	return tr.Status.Token, nil
}

// StartSkipper runs Skipper against the cluster on loopback listeners,
// authenticated as the ServiceAccount skipper-system/skipper with read
// rights only. With slices it reads EndpointSlices
// (-enable-kubernetes-endpointslices), else v1 Endpoints; ExternalName
// backends are refused either way (-enable-kubernetes-external-names is
// left at its default, false). It polls the API every 500 ms. Stop it with
// Stop.
func (c *Cluster) StartSkipper(ctx context.Context, slices bool) (*Skipper, error) {
	bin := Binary("skipper")
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("skipper is not built (%w): run hack/build-third-party.sh", err)
	}
	token, err := c.skipperToken(ctx)
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	s := &Skipper{
		Name:    "endpoints",
		Address: fmt.Sprintf("127.0.0.1:%d", ports[0]),
		Support: fmt.Sprintf("127.0.0.1:%d", ports[1]),
	}
	args := []string{
		"-kubernetes", "-kubernetes-url", c.Config.Host, "-kubernetes-token-file", token,
		"-address", s.Address, "-support-listener", s.Support,
		"-source-poll-timeout", "500", "-wait-for-healthcheck-interval", "0",
		"-application-log-level", "INFO",
	}
	if slices {
		s.Name = "endpointslices"
		args = append(args, "-enable-kubernetes-endpointslices")
	}
	s.cmd, err = Run(filepath.Join(c.Dir, "skipper-"+s.Name+".log"), []string{"SSL_CERT_FILE=" + c.Config.CAFile}, bin, args...)
	if err != nil {
		return nil, fmt.Errorf("failed to start skipper: %w", err)
	}
	c.procs = append(c.procs, s.cmd)
	if err := waitHTTP(ctx, "http://"+s.Support+"/routes", nil, 60*time.Second); err != nil {
		return nil, fmt.Errorf("skipper not ready: %w (see %s)", err, filepath.Join(c.Dir, "skipper-"+s.Name+".log"))
	}
	return s, nil
}

// Cmd is Skipper's process, for Stop.
func (s *Skipper) Cmd() *exec.Cmd { return s.cmd }

// Get sends GET / for host through Skipper and returns the status and body.
func (s *Skipper) Get(host string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, "http://"+s.Address+"/", nil)
	if err != nil {
		return 0, "", err
	}
	req.Host = host
	client := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body := make([]byte, 512)
	n, _ := resp.Body.Read(body)
	return resp.StatusCode, string(body[:n]), nil
}

// SkipperIngress is an Ingress Skipper takes (it has no class) that sends
// host to port 80 of the Service backend in ns, rewriting the Host header
// to rewrite (a Knative gateway routes on the Route's host).
func SkipperIngress(ns, name, host, backend, rewrite string) *networkingv1.Ingress {
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name,
			Annotations: map[string]string{"zalando.org/skipper-filter": fmt.Sprintf("setRequestHeader(%q, %q)", "Host", rewrite)},
		},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{
			Host: host,
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{{
					Path:     "/",
					PathType: ptr.To(networkingv1.PathTypePrefix),
					Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
						Name: backend, Port: networkingv1.ServiceBackendPort{Number: 80},
					}},
				}},
			}},
		}}},
	}
}
