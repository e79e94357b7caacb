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

package webhook

import (
	"encoding/json"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"knative.dev/pkg/configmap"
	"knative.dev/pkg/webhook"

	_ "knative.dev/pkg/client/injection/kube/client/fake"
	_ "knative.dev/pkg/client/injection/kube/informers/admissionregistration/v1/validatingwebhookconfiguration/fake"
	_ "knative.dev/pkg/injection/clients/namespacedkube/informers/core/v1/secret/fake"
	. "knative.dev/pkg/reconciler/testing"
	_ "knative.dev/pkg/system/testing"
)

// TestConfigNetworkAdmission sends config-network to the ConfigMap
// validation webhook as the apiserver would: a bad route-address value is
// refused with a message that names the key, the value and the allowed
// values; good ones and knative/networking's own checks are unchanged.
func TestConfigNetworkAdmission(t *testing.T) {
	ctx, _ := SetupFakeContext(t)
	ctx = webhook.WithOptions(ctx, webhook.Options{SecretName: "webhook-certs"})
	ac := NewConfigValidationController(ctx, configmap.NewStaticWatcher()).Reconciler.(webhook.AdmissionController)

	for _, tc := range []struct {
		name    string
		data    map[string]string
		refused string
	}{{
		name: "no route-address keys",
		data: map[string]string{"ingress-class": "kourier.ingress.networking.knative.dev"},
	}, {
		name: "good values, any case",
		data: map[string]string{"route-address-mode": "endpointsandslices", "route-address-externalname-fallback": "Disabled"},
	}, {
		name:    "a typo of the mode",
		data:    map[string]string{"route-address-mode": "endpointslice"},
		refused: `route-address-mode with value: "endpointslice" in config-network ConfigMap is not supported, allowed values are externalname, endpoints, endpointslices, endpointsandslices`,
	}, {
		name:    "a bad fallback",
		data:    map[string]string{"route-address-externalname-fallback": "sometimes"},
		refused: `route-address-externalname-fallback with value: "sometimes" in config-network ConfigMap is not supported, allowed values are enabled, disabled`,
	}, {
		name:    "networking's own checks still apply",
		data:    map[string]string{"domain-template": "{{.Name", "route-address-mode": "Endpoints"},
		refused: "domain-template",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cm := &corev1.ConfigMap{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				ObjectMeta: metav1.ObjectMeta{Namespace: "knative-serving", Name: "config-network"},
				Data:       tc.data,
			}
			raw, err := json.Marshal(cm)
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
				resp := ac.Admit(ctx, &admissionv1.AdmissionRequest{
					Operation: op,
					Kind:      metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
					Object:    runtime.RawExtension{Raw: raw},
				})
				switch {
				case tc.refused == "" && !resp.Allowed:
					t.Errorf("%s refused: %s", op, resp.Result.Message)
				case tc.refused != "" && resp.Allowed:
					t.Errorf("%s allowed, want refused with %q", op, tc.refused)
				case tc.refused != "" && !strings.Contains(resp.Result.Message, tc.refused):
					t.Errorf("%s refused with %q, want it to say %q", op, resp.Result.Message, tc.refused)
				}
			}
		})
	}
}
