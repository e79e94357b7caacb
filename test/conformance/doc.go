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

// Package conformance is the e2e suite: it runs against a real
// kube-apiserver, kube-controller-manager and CoreDNS (the local control
// plane by default, or any cluster given by E2E_KUBECONFIG and E2E_DNS) and
// asserts what users observe: objects, DNS answers and the apiserver's
// audit log of writes.
package conformance
