package io.acceld.testing.mesos;

import java.net.http.HttpHeaders;
import java.util.Optional;

/** A Mesos API call's answer: status, headers and the body as text. */
public record MesosResponse(int status, HttpHeaders headers, String body) {
  public Optional<String> header(String name) {
    return headers.firstValue(name);
  }
}
