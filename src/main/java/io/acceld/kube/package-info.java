/**
 * The agent's Kubernetes API client: where the API server is and how to authenticate to it
 * (kubeconfig or the pod's service account), and bounded, deadline-bound JSON requests and watches
 * over HTTP/1.1 connections of its own ({@link io.acceld.kube.Http1Exchange}). Neutral: the DRA
 * publisher's ResourceSlices and the node labels' NodeFeature both go through it, and it knows
 * nothing of either.
 *
 * <p>Chosen over fabric8's client (17 MiB of jars, 14 MiB of them new to the agent, for the handful
 * of objects used; see docs/dra.md), and loaded only when a feature that needs the API server is
 * on.
 */
package io.acceld.kube;
