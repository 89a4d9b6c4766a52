package io.acceld.testing.mesos;

import io.acceld.mesos.wire.MediaType;
import io.acceld.proto.mesos.v1.scheduler.Call;
import io.acceld.proto.mesos.v1.scheduler.Event;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;

/** A v1 scheduler client: {@code POST /api/v1/scheduler} (or another path) in one codec. */
public final class MesosSchedulerClient extends MesosApiClient<Call, Event> {
  private MesosSchedulerClient(URI endpoint, MediaType codec, Map<String, String> headers) {
    super(newHttp(), endpoint, codec, Event.getDefaultInstance(), Event::getType, headers);
  }

  /** A client of {@code http://host:port/api/v1/scheduler}. */
  public static MesosSchedulerClient of(String hostPort, MediaType codec) {
    return at(URI.create("http://" + hostPort + "/api/v1/scheduler"), codec);
  }

  public static MesosSchedulerClient at(URI endpoint, MediaType codec) {
    return new MesosSchedulerClient(endpoint, codec, Map.of());
  }

  /** The same client, sending {@code Authorization: value} with every request. */
  public MesosSchedulerClient withAuthorization(String value) {
    Map<String, String> all = new HashMap<>(headers());
    all.put("Authorization", value);
    return new MesosSchedulerClient(endpoint(), codec(), all);
  }
}
