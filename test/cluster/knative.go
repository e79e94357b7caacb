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
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// SystemNamespace is where Knative Serving's config maps live.
const SystemNamespace = "knative-serving"

// ModuleDir returns the directory of a module in the module cache, at the
// version go.mod pins.
func ModuleDir(module string) (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %w", module, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// installKnative creates serving's, networking's and caching's CRDs (waiting until
// they are established), the knative-serving namespace and the config maps
// serving ships, with networking's config-network.
func installKnative(ctx context.Context, cfg *rest.Config, kc kubernetes.Interface) error {
	serving, err := ModuleDir("knative.dev/serving")
	if err != nil {
		return err
	}
	networking, err := ModuleDir("knative.dev/networking")
	if err != nil {
		return err
	}
	caching, err := ModuleDir("knative.dev/caching")
	if err != nil {
		return err
	}
	crdFiles, _ := filepath.Glob(filepath.Join(serving, "config", "core", "300-resources", "*.yaml"))
	crdFiles = append(crdFiles, filepath.Join(caching, "config", "image.yaml"))
	for _, f := range []string{"ingress.yaml", "certificate.yaml", "serverlessservice.yaml", "domain-claim.yaml"} {
		crdFiles = append(crdFiles, filepath.Join(networking, "config", f))
	}
	ext, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := createCRDs(ctx, ext, crdFiles...); err != nil {
		return err
	}

	if _, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: SystemNamespace}}, metav1.CreateOptions{}); err != nil && !apierrs.IsAlreadyExists(err) {
		return err
	}
	cmFiles, _ := filepath.Glob(filepath.Join(serving, "config", "core", "configmaps", "*.yaml"))
	cmFiles = append(cmFiles, filepath.Join(networking, "config", "config-network.yaml"))
	for _, f := range cmFiles {
		docs, err := documents(f)
		if err != nil {
			return err
		}
		for _, d := range docs {
			var cm corev1.ConfigMap
			if err := yaml.Unmarshal(d, &cm); err != nil || cm.Kind != "ConfigMap" {
				continue
			}
			cm.Namespace = SystemNamespace
			for k, v := range configData[cm.Name] {
				if cm.Data == nil {
					cm.Data = map[string]string{}
				}
				cm.Data[k] = v
			}
			if _, err := kc.CoreV1().ConfigMaps(SystemNamespace).Create(ctx, &cm, metav1.CreateOptions{}); err != nil && !apierrs.IsAlreadyExists(err) {
				return fmt.Errorf("failed to create ConfigMap %s: %w", cm.Name, err)
			}
		}
	}
	return nil
}

// LeaderElection is what the local control plane sets in
// config-leader-election: serving's controller always runs under leader
// election, and with serving's leases (60 s) a controller killed by a test
// would keep its successor waiting a minute. These are a quarter of them,
// in the same proportions.
var LeaderElection = map[string]string{"lease-duration": "15s", "renew-deadline": "10s", "retry-period": "2500ms"}

// PatchLeaderElection merges data into config-leader-election: a key
// whose value is "" is removed.
func PatchLeaderElection(ctx context.Context, kube kubernetes.Interface, data map[string]string) error {
	cm, err := kube.CoreV1().ConfigMaps(SystemNamespace).Get(ctx, "config-leader-election", metav1.GetOptions{})
	if err != nil {
		return err
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	for k, v := range data {
		if v == "" {
			delete(cm.Data, k)
		} else {
			cm.Data[k] = v
		}
	}
	_, err = kube.CoreV1().ConfigMaps(SystemNamespace).Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// configData is what the local control plane sets in serving's ConfigMaps:
// LeaderElection, and a progress deadline of a year, since no Pod of a
// Revision ever runs here (no kubelet) and a Deployment past its deadline
// makes its Revision fail (CreateReadyRevision).
var configData = map[string]map[string]string{
	"config-leader-election": LeaderElection,
	"config-deployment":      {"progress-deadline": "8760h"},
}

// createCRDs creates the CRDs in files (an existing one is kept) and waits
// until they are established.
func createCRDs(ctx context.Context, ext apiextensionsclient.Interface, files ...string) error {
	var names []string
	for _, f := range files {
		docs, err := documents(f)
		if err != nil {
			return err
		}
		for _, d := range docs {
			var crd apiextensionsv1.CustomResourceDefinition
			if err := yaml.Unmarshal(d, &crd); err != nil || crd.Kind != "CustomResourceDefinition" {
				continue
			}
			if _, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, &crd, metav1.CreateOptions{}); err != nil && !apierrs.IsAlreadyExists(err) {
				return fmt.Errorf("failed to create CRD %s: %w", crd.Name, err)
			}
			names = append(names, crd.Name)
		}
	}
	for _, n := range names {
		if err := waitEstablished(ctx, ext, n); err != nil {
			return err
		}
	}
	return nil
}

func documents(path string) ([][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var out [][]byte
	for {
		d, err := r.Read()
		if err != nil {
			break
		}
		if len(bytes.TrimSpace(d)) > 0 {
			out = append(out, d)
		}
	}
	return out, nil
}

func waitEstablished(ctx context.Context, ext apiextensionsclient.Interface, name string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		crd, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			for _, c := range crd.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					return nil
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("CRD %s not established", name)
}

// leaderIdentity matches the line knative.dev/pkg's leader election logs
// for each identity a controller takes part with.
var leaderIdentity = regexp.MustCompile(`will run in leader-elected mode with id \\"([^\\"]+)\\"`)

// LeaderIdentities are the leader-election identities a controller's log
// names.
func LeaderIdentities(log []byte) []string {
	var ids []string
	for _, m := range leaderIdentity.FindAllSubmatch(log, -1) {
		ids = append(ids, string(m[1]))
	}
	return ids
}

// LeaseHolders maps each held Lease of the system namespace whose name
// contains what to its holder's identity.
func LeaseHolders(ctx context.Context, kube kubernetes.Interface, what string) (map[string]string, error) {
	l, err := kube.CoordinationV1().Leases(SystemNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, lease := range l.Items {
		if strings.Contains(lease.Name, what) && lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "" {
			out[lease.Name] = *lease.Spec.HolderIdentity
		}
	}
	return out, nil
}
