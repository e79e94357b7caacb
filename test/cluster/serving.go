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
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// servingDeployments are the Deployments of serving's config/core.
var servingDeployments = []string{"controller", "webhook", "activator", "autoscaler"}

// installed is an object InstallServing applied that Close deletes: what
// would act on the cluster after the node is gone (the webhooks'
// configurations, which refuse requests with no webhook behind them, and
// the Deployments).
type installed struct {
	gvr             schema.GroupVersionResource
	namespace, name string
}

// InstallServing installs serving as a release built from its tree is
// installed: build (hack/build-serving.sh, with env added to its
// environment) runs with --core, ko building serving's controller,
// webhook, activator, autoscaler and queue-proxy images on a base of the
// node's registry and pushing them there; every object of the resolved
// config/core is applied (server-side, as kubectl apply --server-side);
// it returns once serving's Deployments are available and its webhook has
// completed the webhooks' configurations with its CA bundle.
func (n *Node) InstallServing(ctx context.Context, build string, env ...string) error {
	base, err := n.Base(ctx, "base")
	if err != nil {
		return err
	}
	out := filepath.Join(n.dir, "serving")
	cmd := exec.CommandContext(ctx, build, "--core", out)
	cmd.Env = append(append(os.Environ(), "KO_DOCKER_REPO="+n.Registry+"/knative", "KO_DEFAULTBASEIMAGE="+base), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s --core: %w: %s", build, err, b)
	}
	docs, err := documents(filepath.Join(out, "serving-core.yaml"))
	if err != nil {
		return err
	}
	groups, err := restmapper.GetAPIGroupResources(n.c.Client.Discovery())
	if err != nil {
		return err
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	dyn, err := dynamic.NewForConfig(n.c.Config)
	if err != nil {
		return err
	}
	n.dyn = dyn
	var hooks []installed
	for _, d := range docs {
		var u unstructured.Unstructured
		if err := yaml.Unmarshal(d, &u.Object); err != nil {
			return err
		}
		if len(u.Object) == 0 {
			continue
		}
		gvk := u.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return fmt.Errorf("%s %s: %w", gvk.Kind, u.GetName(), err)
		}
		data, err := u.MarshalJSON()
		if err != nil {
			return err
		}
		if _, err := dyn.Resource(m.Resource).Namespace(u.GetNamespace()).Patch(ctx, u.GetName(), "application/apply-patch+yaml", data,
			metav1.PatchOptions{FieldManager: "node-install", Force: ptr.To(true)}); err != nil {
			return fmt.Errorf("applying %s %s/%s: %w", gvk.Kind, u.GetNamespace(), u.GetName(), err)
		}
		switch gvk.Kind {
		case "Deployment":
			n.installed = append(n.installed, installed{m.Resource, u.GetNamespace(), u.GetName()})
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			hooks = append(hooks, installed{m.Resource, "", u.GetName()})
			n.installed = append(n.installed, hooks[len(hooks)-1])
		}
	}
	var state string
	if err := wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		var waiting []string
		for _, name := range servingDeployments {
			d, err := n.c.Client.AppsV1().Deployments(SystemNamespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil || !available(d) {
				waiting = append(waiting, "deployment "+name)
			}
		}
		for _, h := range hooks {
			u, err := dyn.Resource(h.gvr).Get(ctx, h.name, metav1.GetOptions{})
			if err != nil {
				waiting = append(waiting, h.name)
				continue
			}
			webhooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
			for _, w := range webhooks {
				if b, _, _ := unstructured.NestedString(w.(map[string]any), "clientConfig", "caBundle"); b == "" {
					waiting = append(waiting, h.name)
					break
				}
			}
		}
		state = strings.Join(waiting, ", ")
		return len(waiting) == 0, nil
	}); err != nil {
		return fmt.Errorf("serving not up after 5 minutes, waiting for %s: %w", state, err)
	}
	return nil
}

func available(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable && c.Status == "True" {
			return d.Status.ObservedGeneration >= d.Generation
		}
	}
	return false
}

// uninstall deletes the webhooks' configurations and the Deployments
// InstallServing applied.
func (n *Node) uninstall(ctx context.Context) {
	for i := len(n.installed) - 1; i >= 0; i-- {
		o := n.installed[i]
		if err := n.dyn.Resource(o.gvr).Namespace(o.namespace).Delete(ctx, o.name, metav1.DeleteOptions{}); err != nil && !apierrs.IsNotFound(err) {
			fmt.Fprintf(os.Stderr, "deleting %s %s: %v\n", o.gvr.Resource, o.name, err)
		}
	}
	n.installed = nil
}
