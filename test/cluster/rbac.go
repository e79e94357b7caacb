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
	"os"
	"path/filepath"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// ControllerServiceAccount is serving's controller's ServiceAccount, in
// SystemNamespace: the e2e controller runs as it, under serving v0.50.0's
// own RBAC plus config/200-clusterrole.yaml, never as an administrator.
const ControllerServiceAccount = "controller"

// AdminRole is serving's aggregated ClusterRole its controller is bound to;
// kube-controller-manager's clusterrole-aggregation controller fills it from
// the ClusterRoles labelled serving.knative.dev/controller=true.
const AdminRole = "knative-serving-admin"

// rbacFiles are serving's ServiceAccounts, roles and bindings (from the
// module cache) and ours (from this repository: the controller's, and the
// plugin users' roles, bound to nobody).
func rbacFiles() ([]string, error) {
	serving, err := ModuleDir("knative.dev/serving")
	if err != nil {
		return nil, err
	}
	ours, err := ModuleDir("knative.dev/route-address")
	if err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(serving, "config", "core", "200-roles", "*.yaml"))
	return append(files,
		filepath.Join(serving, "config", "core", "200-serviceaccount.yaml"),
		filepath.Join(ours, "config", "200-clusterrole.yaml"),
		filepath.Join(ours, "config", "210-plugin-clusterroles.yaml")), nil
}

// installRBAC creates serving's and our ServiceAccounts, (Cluster)Roles and
// (Cluster)RoleBindings.
func installRBAC(ctx context.Context, kc kubernetes.Interface) error {
	files, err := rbacFiles()
	if err != nil {
		return err
	}
	for _, f := range files {
		docs, err := documents(f)
		if err != nil {
			return err
		}
		for _, d := range docs {
			var meta metav1.TypeMeta
			if err := yaml.Unmarshal(d, &meta); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			if err := createRBAC(ctx, kc, meta.Kind, d); err != nil && !apierrs.IsAlreadyExists(err) {
				return fmt.Errorf("%s: %s: %w", f, meta.Kind, err)
			}
		}
	}
	return nil
}

func createRBAC(ctx context.Context, kc kubernetes.Interface, kind string, doc []byte) error {
	opts := metav1.CreateOptions{}
	switch kind {
	case "ServiceAccount":
		var o corev1.ServiceAccount
		if err := yaml.Unmarshal(doc, &o); err != nil {
			return err
		}
		_, err := kc.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, &o, opts)
		return err
	case "ClusterRole":
		var o rbacv1.ClusterRole
		if err := yaml.Unmarshal(doc, &o); err != nil {
			return err
		}
		_, err := kc.RbacV1().ClusterRoles().Create(ctx, &o, opts)
		return err
	case "ClusterRoleBinding":
		var o rbacv1.ClusterRoleBinding
		if err := yaml.Unmarshal(doc, &o); err != nil {
			return err
		}
		_, err := kc.RbacV1().ClusterRoleBindings().Create(ctx, &o, opts)
		return err
	case "Role":
		var o rbacv1.Role
		if err := yaml.Unmarshal(doc, &o); err != nil {
			return err
		}
		_, err := kc.RbacV1().Roles(o.Namespace).Create(ctx, &o, opts)
		return err
	case "RoleBinding":
		var o rbacv1.RoleBinding
		if err := yaml.Unmarshal(doc, &o); err != nil {
			return err
		}
		_, err := kc.RbacV1().RoleBindings(o.Namespace).Create(ctx, &o, opts)
		return err
	}
	return nil
}

// waitAggregated waits until kube-controller-manager has aggregated the
// rules of serving's and our ClusterRoles into AdminRole.
func waitAggregated(ctx context.Context, kc kubernetes.Interface) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		r, err := kc.RbacV1().ClusterRoles().Get(ctx, AdminRole, metav1.GetOptions{})
		if err == nil && len(r.Rules) > 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ClusterRole %s has no rules after 60 s (err %v)", AdminRole, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// writeControllerKubeconfig writes a kubeconfig that authenticates as the
// controller's ServiceAccount with a token valid for a day.
func (c *Cluster) writeControllerKubeconfig(ctx context.Context) error {
	tr, err := c.Client.CoreV1().ServiceAccounts(SystemNamespace).CreateToken(ctx, ControllerServiceAccount, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](24 * 3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("failed to request a token for %s/%s: %w", SystemNamespace, ControllerServiceAccount, err)
	}
	c.ControllerKubeconfig = filepath.Join(c.Dir, "controller.kubeconfig")
	return os.WriteFile(c.ControllerKubeconfig, []byte(fmt.Sprintf(tokenKubeconfigTmpl, c.Config.Host, c.Config.CAFile, tr.Status.Token)), 0o600)
}

const tokenKubeconfigTmpl = `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: controller
  user:
    token: %s
contexts:
- name: controller
  context:
    cluster: local
    user: controller
current-context: controller
`
