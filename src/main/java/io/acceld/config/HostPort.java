package io.acceld.config;

/** A listen address. */
public record HostPort(String host, int port) {
  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}
