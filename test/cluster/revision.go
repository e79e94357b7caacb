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
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	servingclient "knative.dev/serving/pkg/client/clientset/versioned"
	rtesting "knative.dev/serving/pkg/testing"
)

// RevisionImage is the image of the Revisions the suite makes: a registry
// whose tags serving does not resolve (config-deployment's
// registries-skipping-tag-resolving), since nothing here can reach one.
const RevisionImage = "dev.local/hello"

// CreateReadyRevision creates the Revision ns/name and makes it Ready as
// serving's revision reconciler decides it: the reconciler makes its
// Deployment (kube-controller-manager its ReplicaSet and a Pod, which no
// kubelet runs) and its PodAutoscaler, and this sets the PodAutoscaler's
// status as the autoscaler would once the Pod serves (scale target
// initialized, active, a private Service). Nothing here runs the
// autoscaler, so nothing else writes that status. An existing Revision is
// left as it is.
func CreateReadyRevision(ctx context.Context, sc servingclient.Interface, ns, name string) error {
	rev := &v1.Revision{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1.RevisionSpec{PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Image: RevisionImage}}}},
	}
	if _, err := sc.ServingV1().Revisions(ns).Create(ctx, rev, metav1.CreateOptions{}); err != nil {
		if apierrs.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	var last error
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		pa, err := sc.AutoscalingV1alpha1().PodAutoscalers(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err
			return false, nil
		}
		pa.Status.ObservedGeneration = pa.Generation
		pa.Status.DesiredScale, pa.Status.ActualScale = ptr.To[int32](1), ptr.To[int32](1)
		for _, opt := range []rtesting.PodAutoscalerOption{
			rtesting.WithPAStatusService(name + "-private"), rtesting.WithPASKSReady, rtesting.WithScaleTargetInitialized, rtesting.WithTraffic,
		} {
			opt(pa)
		}
		if _, err := sc.AutoscalingV1alpha1().PodAutoscalers(ns).UpdateStatus(ctx, pa, metav1.UpdateOptions{}); err != nil {
			last = err
			return false, nil
		}
		return true, nil
	}); err != nil {
		return fmt.Errorf("the PodAutoscaler of Revision %s/%s: %w (last: %v)", ns, name, err, last)
	}
	return nil
}
