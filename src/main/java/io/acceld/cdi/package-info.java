/**
 * Container Device Interface spec files, shared by the publishers that hand devices to containers
 * through CDI (the device plugin, DRA): where and how a spec is written, and how a {@link
 * io.acceld.allocation.RuntimeSpec} reads as CDI container edits. Imports neither publisher.
 */
package io.acceld.cdi;
