package io.acceld.testing.mesos;

import com.google.protobuf.Message;
import io.acceld.mesos.wire.MediaType;
import io.acceld.mesos.wire.MesosCodec;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * A Mesos v1 API client on the JDK HttpClient, speaking one codec: calls are encoded in it and
 * subscriptions ask for it. Tests that need a wrong request use {@link #post} with raw bytes.
 */
public class MesosApiClient<C extends Message, E extends Message> {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final HttpClient http;
  private final URI endpoint;
  private final MediaType codec;
  private final E eventPrototype;
  private final Function<E, Enum<?>> typeOf;
  private final Map<String, String> headers;

  MesosApiClient(
      HttpClient http,
      URI endpoint,
      MediaType codec,
      E eventPrototype,
      Function<E, Enum<?>> typeOf,
      Map<String, String> headers) {
    this.http = http;
    this.endpoint = endpoint;
    this.codec = codec;
    this.eventPrototype = eventPrototype;
    this.typeOf = typeOf;
    this.headers = Map.copyOf(headers);
  }

  static HttpClient newHttp() {
    // HTTP/1.1 only: Mesos speaks nothing else, and h2c would add an Upgrade header.
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(TIMEOUT)
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  public MediaType codec() {
    return codec;
  }

  public URI endpoint() {
    return endpoint;
  }

  /** Extra headers sent with every request (a second map entry for a name replaces the first). */
  protected Map<String, String> headers() {
    return headers;
  }

  protected HttpClient http() {
    return http;
  }

  protected E eventPrototype() {
    return eventPrototype;
  }

  protected Function<E, Enum<?>> typeOf() {
    return typeOf;
  }

  /** SUBSCRIBE: {@code Accept} is this client's codec unless {@code extra} says otherwise. */
  public MesosEventStream<E> subscribe(C call, Map<String, String> extra) throws IOException {
    return subscribe(call, Optional.of(codec.value()), extra);
  }

  /** SUBSCRIBE with the given {@code Accept} header, or none when empty (as some clients send). */
  public MesosEventStream<E> subscribe(C call, Optional<String> accept, Map<String, String> extra)
      throws IOException {
    Map<String, String> all = new LinkedHashMap<>();
    accept.ifPresent(a -> all.put("Accept", a));
    all.putAll(extra);
    HttpResponse<InputStream> response =
        send(
            Optional.of(codec.value()),
            MesosCodec.encode(call, codec),
            all,
            HttpResponse.BodyHandlers.ofInputStream());
    return new MesosEventStream<>(response, eventPrototype, typeOf);
  }

  public MesosEventStream<E> subscribe(C call) throws IOException {
    return subscribe(call, Map.of());
  }

  /** Any other call, with extra headers such as {@code Mesos-Stream-Id}. */
  public MesosResponse call(C call, Map<String, String> extra) throws IOException {
    return post(Optional.of(codec.value()), MesosCodec.encode(call, codec), extra);
  }

  public MesosResponse call(C call) throws IOException {
    return call(call, Map.of());
  }

  /** A POST of raw bytes with the given Content-Type (none when empty) and headers. */
  public MesosResponse post(Optional<String> contentType, byte[] body, Map<String, String> extra)
      throws IOException {
    HttpResponse<String> response =
        send(contentType, body, extra, HttpResponse.BodyHandlers.ofString());
    return new MesosResponse(response.statusCode(), response.headers(), response.body());
  }

  /** A request of any method without a body to {@code path} on this client's server. */
  public MesosResponse request(String method, String path) throws IOException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(endpoint.resolve(path))
            .timeout(TIMEOUT)
            .method(method, HttpRequest.BodyPublishers.noBody());
    headers.forEach(request::header);
    try {
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new MesosResponse(response.statusCode(), response.headers(), response.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private <T> HttpResponse<T> send(
      Optional<String> contentType,
      byte[] body,
      Map<String, String> extra,
      HttpResponse.BodyHandler<T> handler)
      throws IOException {
    Map<String, String> all = new LinkedHashMap<>(headers);
    all.putAll(extra);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(endpoint).POST(HttpRequest.BodyPublishers.ofByteArray(body));
    contentType.ifPresent(type -> request.header("Content-Type", type));
    all.forEach(request::header);
    try {
      return http.send(request.build(), handler);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
