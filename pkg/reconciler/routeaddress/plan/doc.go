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

// Package plan is the pure planner of the routeaddress reconciler: given the
// Services, Endpoints and EndpointSlices a Route should have and those that
// exist, it returns the ordered operations that take the cluster from one to
// the other. It has no client, no lister and no context.
//
// Only fields this project owns are compared, so server-defaulted fields
// never cause an update; immutable changes become delete + create; new
// endpoints exist before a Service starts to rely on them and obsolete ones
// go last; objects the Route does not control are never in an operation.
package plan
