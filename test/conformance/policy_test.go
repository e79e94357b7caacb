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
	"os"
	"path/filepath"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

// modePolicy applies config/220-route-address-mode-policy.yaml (the
// ValidatingAdmissionPolicy and its binding) as the install does, and
// removes it when the test ends.
func modePolicy(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "config", "220-route-address-mode-policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(b), "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("config/220-route-address-mode-policy.yaml: %d documents, want the policy and its binding", len(docs))
	}
	var policy admissionv1.ValidatingAdmissionPolicy
	var binding admissionv1.ValidatingAdmissionPolicyBinding
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &policy); err != nil {
		t.Fatal("the policy:", err)
	}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &binding); err != nil {
		t.Fatal("the binding:", err)
	}
	if policy.Kind != "ValidatingAdmissionPolicy" || binding.Kind != "ValidatingAdmissionPolicyBinding" {
		t.Fatalf("kinds %q and %q, want the policy then its binding", policy.Kind, binding.Kind)
	}
	api := env.kube.AdmissionregistrationV1()
	if _, err := api.ValidatingAdmissionPolicies().Create(bg(), &policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.ValidatingAdmissionPolicies().Delete(bg(), policy.Name, metav1.DeleteOptions{}) })
	if _, err := api.ValidatingAdmissionPolicyBindings().Create(bg(), &binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.ValidatingAdmissionPolicyBindings().Delete(bg(), binding.Name, metav1.DeleteOptions{}) })
	// The policy's expressions must compile: a type check failure, when
	// the status controller has checked them, is a failure here.
	if p, err := api.ValidatingAdmissionPolicies().Get(bg(), policy.Name, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else if p.Status.TypeChecking != nil && len(p.Status.TypeChecking.ExpressionWarnings) > 0 {
		t.Fatalf("type check warnings: %+v", p.Status.TypeChecking.ExpressionWarnings)
	}
}

// TestNamespaceModePolicy: with the policy of config/ installed, the
// apiserver refuses a Namespace whose route-address-mode annotation is not
// a mode, with a message that names the value and the allowed values; a
// mode (in any case, with spaces), an empty value and removing the
// annotation are accepted; a Namespace whose value was written before the
// policy can still be changed otherwise, or be given a mode.
func TestNamespaceModePolicy(t *testing.T) {
	before := namespace(t, "policy-before")
	annotateMode(t, before, "endpointslice")
	modePolicy(t)

	ns := namespace(t, "policy")
	const want = `annotation networking.knative.dev/route-address-mode with value: "endpointslice" is not supported, allowed values are externalname, endpoints, endpointslices, endpointsandslices`
	// The apiserver enforces a new policy a moment after it is created.
	// Wait with a dry run (admitted or refused, never stored): a probe
	// that wrote the typo would make every later attempt an unchanged
	// value, which the policy lets through.
	eventually(t, "the policy enforced", func() error {
		probe := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name: ns + "-probe", Annotations: map[string]string{netcfg.RouteAddressModeAnnotationKey: "endpointslice"},
		}}
		_, err := env.kube.CoreV1().Namespaces().Create(bg(), probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			return fmt.Errorf("a Namespace annotated endpointslice admitted")
		}
		if !apierrs.IsInvalid(err) {
			return fmt.Errorf("dry run: %w", err)
		}
		return nil
	})
	err := setAnnotation(ns, "endpointslice")
	if !apierrs.IsInvalid(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("annotating endpointslice: %v, want Invalid and %q", err, want)
	}
	t.Logf("refused: %v", err)
	if got, err := env.kube.CoreV1().Namespaces().Get(bg(), ns, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else if v, ok := got.Annotations[netcfg.RouteAddressModeAnnotationKey]; ok {
		t.Fatalf("Namespace %s annotated %q after the typo was refused", ns, v)
	}
	created := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: ns + "-new", Annotations: map[string]string{netcfg.RouteAddressModeAnnotationKey: "externalnam"},
	}}
	if _, err := env.kube.CoreV1().Namespaces().Create(bg(), created, metav1.CreateOptions{}); !apierrs.IsInvalid(err) {
		t.Errorf("creating a Namespace annotated externalnam: %v, want Invalid", err)
		_ = env.kube.CoreV1().Namespaces().Delete(bg(), created.Name, metav1.DeleteOptions{})
	}
	for _, v := range []string{"endpointsandslices", " EndpointSlices ", "ExternalName", "", "endpoints"} {
		if err := setAnnotation(ns, v); err != nil {
			t.Errorf("annotating %q: %v, want it accepted", v, err)
		}
	}
	if err := removeAnnotation(ns); err != nil {
		t.Errorf("removing the annotation: %v, want it accepted", err)
	}

	// Written before the policy: other changes go through, a mode
	// replaces it, another value that is not a mode does not.
	if _, err := env.kube.CoreV1().Namespaces().Patch(bg(), before, types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"team":"a"}}}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("labelling the Namespace annotated before the policy: %v, want it accepted", err)
	}
	if err := setAnnotation(before, "endpointslicess"); !apierrs.IsInvalid(err) {
		t.Errorf("changing the value written before the policy to another typo: %v, want Invalid", err)
	}
	if err := setAnnotation(before, string(netcfg.RouteAddressModeEndpointSlices)); err != nil {
		t.Errorf("fixing the value written before the policy: %v, want it accepted", err)
	}
}

// setAnnotation sets Namespace ns's route-address-mode annotation to value.
func setAnnotation(ns, value string) error {
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, netcfg.RouteAddressModeAnnotationKey, value)
	_, err := env.kube.CoreV1().Namespaces().Patch(bg(), ns, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

// removeAnnotation removes Namespace ns's route-address-mode annotation.
func removeAnnotation(ns string) error {
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:null}}}`, netcfg.RouteAddressModeAnnotationKey)
	_, err := env.kube.CoreV1().Namespaces().Patch(bg(), ns, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}
