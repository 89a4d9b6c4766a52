package io.acceld.testing.mesos;

import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.executor.Call;
import io.acceld.proto.mesos.v1.executor.Event;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;

/** A v1 executor client: {@code POST /api/v1/executor} (or another path) in one codec. */
public final class MesosExecutorClient extends MesosApiClient<Call, Event> {
  private MesosExecutorClient(URI endpoint, MediaType codec, Map<String, String> headers) {
    super(newHttp(), endpoint, codec, Event.getDefaultInstance(), Event::getType, headers);
  }

  /** A client of {@code http://host:port/api/v1/executor}. */
  public static MesosExecutorClient of(String hostPort, MediaType codec) {
    return at(URI.create("http://" + hostPort + "/api/v1/executor"), codec);
  }

  public static MesosExecutorClient at(URI endpoint, MediaType codec) {
    return new MesosExecutorClient(endpoint, codec, Map.of());
  }

  /** The same client, sending {@code Authorization: value} with every request. */
  public MesosExecutorClient withAuthorization(String value) {
    Map<String, String> all = new HashMap<>(headers());
    all.put("Authorization", value);
    return new MesosExecutorClient(endpoint(), codec(), all);
  }
}
