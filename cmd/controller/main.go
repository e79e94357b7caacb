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

// The serving controller binary with route-address: knative.dev/serving
// v0.50.0's cmd/controller (cert-manager branch included) whose route
// controller is fenced, plus the routeaddress controller.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	networkingcfg "knative.dev/networking/pkg/config"
	"knative.dev/pkg/injection"
	"knative.dev/pkg/injection/sharedmain"
	"knative.dev/pkg/reconciler"
	"knative.dev/pkg/signals"
	"knative.dev/pkg/system"
	"knative.dev/serving/pkg/networking"
	"knative.dev/serving/pkg/reconciler/certificate"

	versioned "github.com/cert-manager/cert-manager/pkg/client/clientset/versioned"
	"knative.dev/serving/pkg/client/certmanager/injection/informers/acme/v1/challenge"
	v1certificate "knative.dev/serving/pkg/client/certmanager/injection/informers/certmanager/v1/certificate"
	"knative.dev/serving/pkg/client/certmanager/injection/informers/certmanager/v1/certificaterequest"
	"knative.dev/serving/pkg/client/certmanager/injection/informers/certmanager/v1/clusterissuer"
	"knative.dev/serving/pkg/client/certmanager/injection/informers/certmanager/v1/issuer"

	"knative.dev/route-address/pkg/controllers"
)

func main() {
	flag.DurationVar(&reconciler.DefaultTimeout,
		"reconciliation-timeout", reconciler.DefaultTimeout,
		"The amount of time to give each reconciliation of a resource to complete before its context is canceled.")

	ctx := controllers.WithInformerSelectors(signals.NewContext())

	// HACK: This parses flags, so the above should be set once this runs.
	cfg := injection.ParseAndGetRESTConfigOrDie()

	client := kubernetes.NewForConfigOrDie(cfg)
	ctors := controllers.Constructors()

	netCfg := networkConfig(ctx, client)
	if networking.IsNetCertManagerControllerRequired(netCfg) {
		v := versioned.NewForConfigOrDie(cfg)
		if ok, err := certManagerCRDsExist(v); !ok {
			log.Fatalf("Please install cert-manager: %v", err)
		}
		for _, inf := range []injection.InformerInjector{challenge.WithInformer, v1certificate.WithInformer, certificaterequest.WithInformer, clusterissuer.WithInformer, issuer.WithInformer} {
			injection.Default.RegisterInformer(inf)
		}
		ctors = append(ctors, certificate.NewController)
	}

	sharedmain.MainWithConfig(ctx, "controller", cfg, ctors...)
}

// networkConfig reads config-network as serving's main does. A bad
// route-address key is not its concern: the routeaddress controller's
// config store uses upstream's behaviour then and reports it, so that a key
// of ours never stops serving's controller.
func networkConfig(ctx context.Context, client *kubernetes.Clientset) *networkingcfg.Config {
	cm, err := client.CoreV1().ConfigMaps(system.Namespace()).Get(ctx, "config-network", metav1.GetOptions{})
	if err != nil {
		log.Fatalf("Failed to get cm config-network: %v", err)
	}
	netCfg, err := networkingcfg.NewConfigFromMap(cm.Data)
	if err != nil {
		log.Fatalf("Failed to construct network config: %v", err)
	}
	return netCfg
}

func certManagerCRDsExist(client *versioned.Clientset) (bool, error) {
	if ok, err := findCRD(client, "cert-manager.io/v1", []string{"certificaterequests", "certificates", "clusterissuers", "issuers"}); !ok {
		return false, err
	}
	if ok, err := findCRD(client, "acme.cert-manager.io/v1", []string{"challenges"}); !ok {
		return false, err
	}
	return true, nil
}

func findCRD(client *versioned.Clientset, groupVersion string, crds []string) (bool, error) {
	resourceList, err := client.Discovery().ServerResourcesForGroupVersion(groupVersion)
	if err != nil {
		return false, err
	}
	for _, crdName := range crds {
		isCRDPresent := false
		for _, resource := range resourceList.APIResources {
			if resource.Name == crdName {
				isCRDPresent = true
			}
		}
		if !isCRDPresent {
			return false, fmt.Errorf("cert manager crds are missing: %s", crdName)
		}
	}
	return true, nil
}
