package io.acceld.doctor;

import io.acceld.doctor.Bounded.Outcome;
import io.acceld.metrics.AgentEndpointClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * What a running agent answered on its metrics address: {@code /healthz}, {@code /readyz} and
 * {@code /devices}, each asked once, all at the same time, each within the limit.
 *
 * @param base the {@code --agent} URL
 * @param client why no request could be made (a token or certificate file unusable); empty when the
 *     requests were made
 */
record AgentAnswers(
    URI base, Optional<String> client, Answer healthz, Answer readyz, Answer devices) {

  /** More than any agent's {@code /devices} (about 1 KiB a device): a peer cannot flood doctor. */
  static final int MAX_BODY_BYTES = 8 << 20;

  /** One endpoint's answer. */
  sealed interface Answer {
    /** It answered {@code status} with {@code body}. */
    record Reply(int status, String body) implements Answer {}

    /** It did not answer; {@code why} says what happened instead. */
    record NoReply(String why) implements Answer {}
  }

  static AgentAnswers ask(URI base, String auth, String certificate, Duration limit) {
    AgentEndpointClient client;
    try {
      client = AgentEndpointClient.fromSettings(auth, certificate);
    } catch (IllegalArgumentException e) {
      Answer none = new Answer.NoReply("not asked");
      return new AgentAnswers(base, Optional.of(e.getMessage()), none, none, none);
    }
    List<Callable<Answer>> gets =
        List.of(
            () -> get(client, base.resolve("/healthz"), limit),
            () -> get(client, base.resolve("/readyz"), limit),
            () -> get(client, base.resolve("/devices"), limit));
    List<Answer> answers =
        Bounded.all("agent", limit, gets).stream().map(AgentAnswers::answer).toList();
    return new AgentAnswers(base, Optional.empty(), answers.get(0), answers.get(1), answers.get(2));
  }

  private static Answer answer(Outcome<Answer> outcome) {
    if (outcome instanceof Outcome.Done<Answer> done) {
      return done.value();
    }
    if (outcome instanceof Outcome.Late<Answer> late) {
      return new Answer.NoReply("no answer within " + Bounded.shown(late.limit()));
    }
    return new Answer.NoReply(String.valueOf(((Outcome.Threw<Answer>) outcome).error()));
  }

  private static Answer get(AgentEndpointClient client, URI uri, Duration limit)
      throws InterruptedException {
    try {
      HttpResponse<InputStream> response =
          client.http().send(client.get(uri, limit), HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream body = response.body()) {
        byte[] bytes = body.readNBytes(MAX_BODY_BYTES + 1);
        if (bytes.length > MAX_BODY_BYTES) {
          return new Answer.NoReply("its answer is larger than " + (MAX_BODY_BYTES >> 20) + " MiB");
        }
        return new Answer.Reply(response.statusCode(), new String(bytes, StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      return new Answer.NoReply(e.toString());
    }
  }
}
