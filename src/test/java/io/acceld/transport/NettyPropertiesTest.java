package io.acceld.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.netty.shaded.io.netty.util.internal.PlatformDependent;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class NettyPropertiesTest {
  @Test
  void theAgentsTransportLeavesFlightRecorderAlone() {
    // The property name is the shaded one the bundled Netty reads: this fails if shading renames
    // it.
    try (UnixGrpc grpc = new UnixGrpc("acceld-test", 1)) {
      assertThat(PlatformDependent.isJfrEnabled()).isFalse();
    }
  }

  @Test
  void keepsTheOperatorsValue() {
    Properties properties = new Properties();
    properties.setProperty("io.grpc.netty.shaded.io.netty.jfr.enabled", "true");
    NettyProperties.install(properties);
    assertThat(properties.getProperty("io.grpc.netty.shaded.io.netty.jfr.enabled"))
        .isEqualTo("true");
  }
}
