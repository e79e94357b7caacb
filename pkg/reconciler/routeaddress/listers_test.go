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

package routeaddress

import (
	discoveryv1 "k8s.io/api/discovery/v1"
	discoveryv1listers "k8s.io/client-go/listers/discovery/v1"

	. "knative.dev/serving/pkg/reconciler/testing/v1"
)

// endpointSliceLister stands in for serving's Listers.GetEndpointSliceLister,
// which serving's patch adds (hack/upstream/serving-listers.patch; the
// patch's version of this file calls it).
func endpointSliceLister(l *Listers) discoveryv1listers.EndpointSliceLister {
	return discoveryv1listers.NewEndpointSliceLister(l.IndexerFor(&discoveryv1.EndpointSlice{}))
}
