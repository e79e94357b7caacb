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

// hello is a Knative Service's app for the node's tests: it serves HTTP on
// $PORT and answers with the revision it runs in ($K_REVISION, set by
// serving), so that a test can tell that a request reached the app.
package main

import (
	"fmt"
	"log"
	"net/http"
	"os"
)

func main() {
	revision := os.Getenv("K_REVISION")
	log.Fatal(http.ListenAndServe(":"+os.Getenv("PORT"), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", revision)
	})))
}
