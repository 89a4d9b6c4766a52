package io.acceld.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.netty.shaded.io.netty.buffer.UnpooledByteBufAllocator;
import io.grpc.netty.shaded.io.netty.util.internal.PlatformDependent;
import java.lang.reflect.Method;
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
  void theAgentsTransportKeepsNoPoolOfDirectMemory() throws Exception {
    try (UnixGrpc grpc = new UnixGrpc("acceld-test", 1)) {
      // What gRPC's Netty transports allocate from, servers and channels alike (package-private).
      Method choice =
          Class.forName("io.grpc.netty.shaded.io.grpc.netty.Utils")
              .getDeclaredMethod("getByteBufAllocator", boolean.class);
      choice.setAccessible(true);
      assertThat(choice.invoke(null, false)).isInstanceOf(UnpooledByteBufAllocator.class);
    }
  }

  @Test
  void keepsTheOperatorsValue() {
    Properties properties = new Properties();
    properties.setProperty("io.grpc.netty.shaded.io.netty.jfr.enabled", "true");
    NettyProperties.DEFAULTS.install(properties);
    assertThat(properties.getProperty("io.grpc.netty.shaded.io.netty.jfr.enabled"))
        .isEqualTo("true");
  }
}
