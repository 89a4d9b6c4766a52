/**
 * Telling systemd how the agent is doing ({@code Type=notify}): readiness, status and watchdog over
 * {@code NOTIFY_SOCKET}. Reads the kubelet publisher's readiness; nothing depends on it.
 */
package io.acceld.systemd;
