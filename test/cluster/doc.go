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

// Package cluster starts a real, loopback-only Kubernetes control plane for
// the e2e tests and the demo: etcd, kube-apiserver (with an audit log of
// writes), kube-controller-manager (garbage collector, namespace and
// EndpointSlice mirroring controllers) and CoreDNS with its kubernetes
// plugin, from binaries hack/build-third-party.sh builds out of the Go
// modules under third_party/. It then installs Knative Serving's and
// networking's CRDs and config maps from the pinned modules.
package cluster
