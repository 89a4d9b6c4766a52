package io.acceld.mesos.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class JdkHttpServerPropertiesTest {
  @Test
  void setsRequestTimeoutsButNeverAResponseTimeoutAndKeepsTheOperatorsValues() {
    // Streams are responses that last for hours: a response time limit would cut them off.
    assertThat(JdkHttpServerProperties.DEFAULTS.values())
        .doesNotContainKey("sun.net.httpserver.maxRspTime");
    assertThat(JdkHttpServerProperties.DEFAULTS.values())
        .containsKey("sun.net.httpserver.maxReqTime");
    Properties properties = new Properties();
    properties.setProperty("sun.net.httpserver.maxReqHeaders", "7");
    JdkHttpServerProperties.DEFAULTS.install(properties);
    assertThat(properties.getProperty("sun.net.httpserver.maxReqHeaders")).isEqualTo("7");
    assertThat(properties.getProperty("sun.net.httpserver.maxReqTime")).isEqualTo("10");
  }

  @Test
  void turnsNaglesAlgorithmOffSoThatAKeptAliveCallIsNotHeldForTheDelayedAck() {
    Properties properties = new Properties();
    JdkHttpServerProperties.DEFAULTS.install(properties);
    assertThat(properties.getProperty("sun.net.httpserver.nodelay")).isEqualTo("true");
  }
}
