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
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// WebhookIP is the ClusterIP of serving's webhook Service. The apiserver
// calls a webhook at its Service's ClusterIP and port; with no kube-proxy,
// StartWebhook puts this address on the host's loopback interface, where
// the webhook listens on port 443.
const WebhookIP = "198.19.0.250"

// Webhook is a running webhook binary (cmd/webhook) that the apiserver
// calls for serving's ConfigMap validation.
type Webhook struct {
	cmd *exec.Cmd
	c   *Cluster
}

// StartWebhook runs bin as serving's webhook: the webhook-certs Secret and
// webhook Service (at WebhookIP) that serving's config/ ships, the
// webhook on the host at WebhookIP:443 as the controller ServiceAccount
// (serving's webhook Deployment uses that account), and serving's
// ValidatingWebhookConfiguration config.webhook.serving.knative.dev, which
// the webhook completes (CA bundle, service path). It needs root. Close
// removes the configuration first, so that nothing is refused once the
// webhook is gone.
func (c *Cluster) StartWebhook(ctx context.Context, bin string) (w *Webhook, err error) {
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("the webhook's address needs root")
	}
	w = &Webhook{c: c}
	defer func() {
		if err != nil {
			w.Close()
		}
	}()
	kc := c.Client
	if _, err := kc.CoreV1().Secrets(SystemNamespace).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "webhook-certs"}}, metav1.CreateOptions{}); err != nil && !apierrs.IsAlreadyExists(err) {
		return w, err
	}
	if _, err := kc.CoreV1().Services(SystemNamespace).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "webhook"},
		Spec: corev1.ServiceSpec{ClusterIP: WebhookIP, Ports: []corev1.ServicePort{{
			Name: "https-webhook", Port: 443, TargetPort: intstr.FromInt32(8443),
		}}},
	}, metav1.CreateOptions{}); err != nil && !apierrs.IsAlreadyExists(err) {
		return w, err
	}
	if out, err := exec.CommandContext(ctx, "ip", "addr", "add", WebhookIP+"/32", "dev", "lo").CombinedOutput(); err != nil {
		return w, fmt.Errorf("ip addr add %s: %w: %s", WebhookIP, err, out)
	}
	w.cmd, err = Run(filepath.Join(c.Dir, "webhook.log"),
		[]string{
			"SYSTEM_NAMESPACE=" + SystemNamespace, "WEBHOOK_NAME=webhook", "WEBHOOK_PORT=443", "PROFILING_PORT=0",
			"CONFIG_LOGGING_NAME=config-logging", "CONFIG_OBSERVABILITY_NAME=config-observability",
		},
		bin, "--kubeconfig", c.ControllerKubeconfig)
	if err != nil {
		return w, err
	}

	serving, err := ModuleDir("knative.dev/serving")
	if err != nil {
		return w, err
	}
	docs, err := documents(filepath.Join(serving, "config", "core", "webhooks", "configmap-validation.yaml"))
	if err != nil {
		return w, err
	}
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	if err := yaml.Unmarshal(docs[0], &vwc); err != nil {
		return w, err
	}
	if _, err := kc.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &vwc, metav1.CreateOptions{}); err != nil && !apierrs.IsAlreadyExists(err) {
		return w, err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		got, err := kc.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, vwc.Name, metav1.GetOptions{})
		if err == nil && len(got.Webhooks) > 0 && len(got.Webhooks[0].ClientConfig.CABundle) > 0 {
			return w, nil
		}
		if time.Now().After(deadline) {
			return w, fmt.Errorf("the webhook did not complete %s in 60 s (see %s)", vwc.Name, filepath.Join(c.Dir, "webhook.log"))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Close deletes the ValidatingWebhookConfiguration, stops the webhook and
// takes its address off the host.
func (w *Webhook) Close() {
	_ = w.c.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(context.Background(), "config.webhook.serving.knative.dev", metav1.DeleteOptions{})
	if w.cmd != nil {
		stop(w.cmd)
	}
	_ = exec.Command("ip", "addr", "del", WebhookIP+"/32", "dev", "lo").Run()
}
