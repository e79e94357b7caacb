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

// Package routeaddress is the reconciler that gives a Route's cluster-local
// Services real endpoints: while config-network's route-address-mode is
// Endpoints, EndpointSlices or EndpointsAndSlices it is the only writer of
// the Route's Services, Endpoints and EndpointSlices (the route reconciler
// leaves them alone in those modes); in ExternalName mode it only removes
// what it created, once the route reconciler has taken the Services back.
package routeaddress
