/**
 * Node labels: what the node's accelerators are, as label keys and values that Kubernetes
 * scheduling can select on, computed from the inventory alone and written where Node Feature
 * Discovery turns them into node labels.
 *
 * <p>A consumer of the inventory like the publishers, but it hands out nothing: it imports {@code
 * inventory} and {@code config} (the MIG strategy and sharing that GPU Feature Discovery's values
 * depend on) and {@code util}, never a publisher ({@code kubelet}, {@code mesos}). The label
 * computation ({@link io.acceld.labels.NodeLabels}) is a pure function kept apart from where the
 * labels go ({@code FeatureFile}, {@code NodeLabelsPublisher}), so that a second output, such as an
 * NFD {@code NodeFeature} object once the agent has a Kubernetes client, takes the same labels.
 */
package io.acceld.labels;
