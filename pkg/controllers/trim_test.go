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

package controllers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestDropManagedFields(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{
		Name:          "hello",
		Labels:        map[string]string{"serving.knative.dev/route": "hello"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "controller", Operation: metav1.ManagedFieldsOperationUpdate}},
	}}
	want := svc.DeepCopy()
	want.ManagedFields = nil
	got, err := dropManagedFields(svc)
	if err != nil {
		t.Fatal("dropManagedFields() =", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error("dropManagedFields() (-want +got):", diff)
	}

	tombstone := cache.DeletedFinalStateUnknown{Key: "default/hello", Obj: svc}
	if got, err := dropManagedFields(tombstone); err != nil || !cmp.Equal(got, tombstone) {
		t.Errorf("dropManagedFields(tombstone) = %v, %v; want it unchanged", got, err)
	}
}
