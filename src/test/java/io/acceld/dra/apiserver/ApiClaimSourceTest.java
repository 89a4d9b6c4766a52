package io.acceld.dra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.acceld.dra.AllocatedClaim;
import io.acceld.dra.ClaimSource.ClaimLookupException;
import io.acceld.kube.ApiException;
import io.acceld.kube.KubeApi;
import io.acceld.kube.KubeConfigLoader;
import io.acceld.testing.kube.KubeApiDouble;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ResourceClaims read over real HTTP from the API-server double. */
class ApiClaimSourceTest {
  static final String ALLOCATED =
      """
      {"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
       "metadata":{"name":"big-gpu-x7k2","namespace":"ml","uid":"c1a2-uid"},
       "spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.acceld.io"}}]}},
       "status":{"allocation":{"devices":{"results":[
         {"request":"gpu","driver":"gpu.acceld.io","pool":"node-a","device":"gpu-0"},
         {"request":"gpu/small","driver":"other.example.com","pool":"p","device":"d-1"}]}}}}
      """;

  @TempDir Path dir;
  KubeApiDouble server;
  KubeApi api;
  ApiClaimSource claims;

  @BeforeEach
  void setUp() throws Exception {
    server = KubeApiDouble.start();
    server.requireToken("t");
    api =
        new KubeApi(
            KubeConfigLoader.fromFile(server.kubeconfig(dir, "t"), "test"), Duration.ofSeconds(5));
    claims = new ApiClaimSource(api);
  }

  @AfterEach
  void tearDown() {
    api.close();
    server.close();
  }

  @Test
  void anAllocatedClaimGivesItsUidAndEveryResult() throws Exception {
    server.putClaim("ml", "big-gpu-x7k2", ALLOCATED);
    AllocatedClaim claim = claims.get("ml", "big-gpu-x7k2");
    assertThat(claim.uid()).isEqualTo("c1a2-uid");
    assertThat(claim.allocated()).isTrue();
    assertThat(claim.results())
        .containsExactly(
            new AllocatedClaim.Result("gpu", "gpu.acceld.io", "node-a", "gpu-0"),
            new AllocatedClaim.Result("gpu/small", "other.example.com", "p", "d-1"));
    assertThat(server.requests("get")).isEqualTo(1);
  }

  @Test
  void aClaimWithoutAllocationSaysSo() throws Exception {
    server.putClaim(
        "ml", "pending", "{\"kind\":\"ResourceClaim\",\"metadata\":{\"uid\":\"u\"},\"status\":{}}");
    AllocatedClaim claim = claims.get("ml", "pending");
    assertThat(claim.allocated()).isFalse();
    assertThat(claim.results()).isEmpty();
  }

  @Test
  void aMissingClaimIsNotFound() {
    assertThatThrownBy(() -> claims.get("ml", "gone"))
        .isInstanceOf(ClaimLookupException.class)
        .hasMessage("ResourceClaim ml/gone not found");
  }

  @Test
  void anUnparseableBodyIsAClearError() {
    server.putClaim("ml", "junk", "{\"kind\":\"ResourceClaim\",\u0001 not json");
    assertThatThrownBy(() -> claims.get("ml", "junk"))
        .isInstanceOf(ClaimLookupException.class)
        .hasMessageContaining("ResourceClaim ml/junk")
        .hasMessageContaining("not JSON");
    server.putClaim(
        "ml",
        "half",
        "{\"kind\":\"ResourceClaim\",\"metadata\":{\"uid\":\"u\"},"
            + "\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"gpu\"}]}}}}");
    assertThatThrownBy(() -> claims.get("ml", "half"))
        .hasMessageContaining("status.allocation.devices.results[0].driver is missing");
    server.putClaim("ml", "other", "{\"kind\":\"Pod\",\"metadata\":{\"uid\":\"u\"}}");
    assertThatThrownBy(() -> claims.get("ml", "other")).hasMessageContaining("not a ResourceClaim");
  }

  @Test
  void aTenMebibyteClaimIsRefusedWithoutReadingItAll() {
    byte[] huge = new byte[10 << 20];
    Arrays.fill(huge, (byte) ' ');
    byte[] head =
        "{\"kind\":\"ResourceClaim\",\"metadata\":{\"uid\":\"u\"}".getBytes(StandardCharsets.UTF_8);
    System.arraycopy(head, 0, huge, 0, head.length);
    huge[huge.length - 1] = '}';
    server.putClaim("ml", "huge", huge);
    assertThatThrownBy(() -> claims.get("ml", "huge"))
        .isInstanceOf(ClaimLookupException.class)
        .hasMessageContaining("ResourceClaim ml/huge")
        .hasMessageContaining("larger than " + KubeApi.MAX_BODY + " bytes");
  }

  @Test
  void refusalsNameTheStatusAndQuoteTheServerBounded() {
    server.failWith(403);
    assertThatThrownBy(() -> claims.get("ml", "x"))
        .hasMessageContaining("HTTP 403 (forbidden)")
        .hasMessageContaining("injected failure 403");
  }

  @Test
  void aServerMessageIsEscapedAndBounded() {
    String message = "line one\nforged line " + "x".repeat(5000);
    byte[] body =
        ("{\"kind\":\"Status\",\"message\":"
                + new com.fasterxml.jackson.databind.ObjectMapper().valueToTree(message)
                + ",\"code\":500}")
            .getBytes(StandardCharsets.UTF_8);
    ApiException e = KubeApi.failure("GET", "/p", 500, body);
    assertThat(e.kind()).isEqualTo(ApiException.Kind.SERVER);
    assertThat(e.getMessage()).doesNotContain("\n").contains("line one\\u000aforged");
    assertThat(e.getMessage().length()).isLessThan(KubeApi.MAX_MESSAGE + 100);
  }

  @Test
  void statusesAreClassified() {
    assertThat(ApiException.Kind.ofStatus(401)).isEqualTo(ApiException.Kind.UNAUTHORIZED);
    assertThat(ApiException.Kind.ofStatus(403)).isEqualTo(ApiException.Kind.FORBIDDEN);
    assertThat(ApiException.Kind.ofStatus(404)).isEqualTo(ApiException.Kind.NOT_FOUND);
    assertThat(ApiException.Kind.ofStatus(409)).isEqualTo(ApiException.Kind.CONFLICT);
    assertThat(ApiException.Kind.ofStatus(410)).isEqualTo(ApiException.Kind.GONE);
    assertThat(ApiException.Kind.ofStatus(422)).isEqualTo(ApiException.Kind.INVALID);
    assertThat(ApiException.Kind.ofStatus(429)).isEqualTo(ApiException.Kind.SERVER);
    assertThat(ApiException.Kind.ofStatus(503)).isEqualTo(ApiException.Kind.SERVER);
    assertThat(ApiException.Kind.ofStatus(418)).isEqualTo(ApiException.Kind.OTHER);
  }

  @Test
  void aServerThatIsDownIsAConnectionError() {
    server.down();
    assertThatThrownBy(() -> api.get("/api/v1/nodes/a"))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.kind()).isEqualTo(ApiException.Kind.CONNECTION));
  }

  @Test
  void aSlowServerTimesOut() throws Exception {
    server.addNode("a", "u");
    server.delay(Duration.ofSeconds(3));
    try (KubeApi impatient =
        new KubeApi(
            KubeConfigLoader.fromFile(server.kubeconfig(dir, "t"), "test"),
            Duration.ofMillis(300))) {
      assertThatThrownBy(() -> impatient.get("/api/v1/nodes/a"))
          .isInstanceOfSatisfying(
              ApiException.class,
              e -> assertThat(e.kind()).isEqualTo(ApiException.Kind.CONNECTION));
    }
  }
}
