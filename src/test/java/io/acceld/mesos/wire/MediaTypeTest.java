package io.acceld.mesos.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class MediaTypeTest {
  private static Optional<MediaType> negotiate(String accept) {
    return MediaType.negotiate(Optional.ofNullable(accept));
  }

  @Test
  void contentTypeMatchIsExactAndCaseSensitive() {
    assertThat(MediaType.ofContentType("application/json")).contains(MediaType.JSON);
    assertThat(MediaType.ofContentType("application/x-protobuf")).contains(MediaType.PROTOBUF);
    assertThat(MediaType.ofContentType("Application/JSON")).isEmpty();
    assertThat(MediaType.ofContentType("application/json; charset=utf-8")).isEmpty();
    assertThat(MediaType.ofContentType("application/unknown-media-type")).isEmpty();
  }

  @Test
  void noAcceptOrAnythingMeansJson() {
    assertThat(negotiate(null)).contains(MediaType.JSON);
    assertThat(negotiate("*/*")).contains(MediaType.JSON);
    assertThat(negotiate("application/*")).contains(MediaType.JSON);
  }

  @Test
  void jsonIsPreferredWheneverAcceptable() {
    assertThat(negotiate("application/x-protobuf, application/json;q=0.1"))
        .contains(MediaType.JSON);
    assertThat(negotiate("application/x-protobuf")).contains(MediaType.PROTOBUF);
    assertThat(negotiate("application/x-protobuf;q=0.5, text/html")).contains(MediaType.PROTOBUF);
  }

  @Test
  void qZeroExcludesAndTheMostSpecificRangeDecides() {
    assertThat(negotiate("application/json;q=0, */*")).contains(MediaType.PROTOBUF);
    assertThat(negotiate("*/*;q=0, application/x-protobuf")).contains(MediaType.PROTOBUF);
    assertThat(negotiate("application/*;q=0")).isEmpty();
    assertThat(negotiate("application/json; q=0.0, application/x-protobuf; q=0")).isEmpty();
  }

  @Test
  void nothingAcceptableIsEmpty() {
    assertThat(negotiate("foo")).isEmpty();
    assertThat(negotiate("text/html, image/*")).isEmpty();
    assertThat(negotiate("")).isEmpty();
  }
}
