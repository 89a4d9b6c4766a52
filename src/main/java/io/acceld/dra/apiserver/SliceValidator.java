package io.acceld.dra.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceld.util.ClientText;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The API server's validation of a {@code resource.k8s.io/v1} ResourceSlice, as far as what this
 * agent writes can break it: run before every write, so a bad slice is logged here with every
 * reason instead of being refused one field at a time, and used by the test API server to answer
 * 422 as the real one does.
 *
 * <p>Rules: the name (or {@code generateName}) a DNS subdomain; {@code spec.driver} a lower-case
 * DNS subdomain of at most 63 characters; the pool name at most 253 characters of DNS subdomains
 * joined by {@code /}, {@code generation} not negative, {@code resourceSliceCount} above 0; exactly
 * one of {@code nodeName}, {@code nodeSelector}, {@code allNodes}, {@code perDeviceNodeSelection};
 * at most 128 devices, each named by a DNS label unique in the slice, with at most 32 attributes
 * and capacities together; attribute and capacity names qualified names (an optional DNS-subdomain
 * domain of at most 63 characters, then a C identifier of at most 32); each attribute exactly one
 * of {@code int}, {@code bool}, {@code string} (at most 64 characters) or {@code version} (semantic
 * version, at most 64); each capacity a Quantity.
 */
public final class SliceValidator {
  public static final int MAX_DEVICES = 128;
  public static final int MAX_ATTRIBUTES_AND_CAPACITIES = 32;
  static final int MAX_VALUE_LENGTH = 64;

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern C_IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern SEMVER =
      Pattern.compile(
          "(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)"
              + "(-[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*)?(\\+[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*)?");
  private static final Pattern QUANTITY =
      Pattern.compile("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([KMGTPE]i|[mkMGTPE]|[eE][+-]?[0-9]+)?");
  private static final List<String> NODE_FIELDS =
      List.of("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection");

  private SliceValidator() {}

  /** What is wrong with {@code slice}, one sentence each; empty when the server would take it. */
  public static List<String> validate(JsonNode slice) {
    List<String> problems = new ArrayList<>();
    JsonNode metadata = slice.path("metadata");
    String name = metadata.path("name").asText("");
    String generateName = metadata.path("generateName").asText("");
    if (name.isEmpty() && generateName.isEmpty()) {
      problems.add("metadata: name or generateName is required");
    }
    if (!name.isEmpty() && !dnsSubdomain(name, 253)) {
      problems.add("metadata.name " + ClientText.quote(name) + ": not a DNS subdomain");
    }
    // The server appends five characters to generateName.
    if (!generateName.isEmpty()
        && !dnsSubdomain(generateName.replaceAll("-$", "") + "-abcde", 253)) {
      problems.add(
          "metadata.generateName "
              + ClientText.quote(generateName)
              + ": not a DNS subdomain prefix");
    }
    JsonNode spec = slice.path("spec");
    String driver = spec.path("driver").asText("");
    if (!dnsSubdomain(driver, 63)) {
      problems.add(
          "spec.driver "
              + ClientText.quote(driver)
              + ": must be a DNS subdomain of 1-63 characters");
    }
    pool(spec.path("pool"), problems);
    long nodeFields = NODE_FIELDS.stream().filter(f -> present(spec.path(f))).count();
    if (nodeFields != 1) {
      problems.add(
          "spec: exactly one of nodeName, nodeSelector, allNodes, perDeviceNodeSelection is"
              + " required, found "
              + nodeFields);
    }
    if (spec.has("nodeName") && !dnsSubdomain(spec.path("nodeName").asText(""), 253)) {
      problems.add("spec.nodeName: not a DNS subdomain");
    }
    JsonNode devices = spec.path("devices");
    if (present(devices) && !devices.isArray()) {
      problems.add("spec.devices: not a list");
    } else if (devices.size() > MAX_DEVICES) {
      problems.add(
          "spec.devices: " + devices.size() + " devices, at most " + MAX_DEVICES + " allowed");
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < devices.size(); i++) {
      device(devices.get(i), "spec.devices[" + i + "]", names, problems);
    }
    return problems;
  }

  private static void pool(JsonNode pool, List<String> problems) {
    String name = pool.path("name").asText("");
    boolean ok = !name.isEmpty() && name.length() <= 253;
    for (String part : name.split("/", -1)) {
      ok &= dnsSubdomain(part, 253);
    }
    if (!ok) {
      problems.add(
          "spec.pool.name "
              + ClientText.quote(name)
              + ": must be DNS subdomains joined by '/', at most 253 characters");
    }
    if (!pool.path("generation").canConvertToLong() || pool.path("generation").asLong() < 0) {
      problems.add("spec.pool.generation: must be a non-negative integer");
    }
    if (!pool.path("resourceSliceCount").canConvertToLong()
        || pool.path("resourceSliceCount").asLong() <= 0) {
      problems.add("spec.pool.resourceSliceCount: must be greater than zero");
    }
  }

  private static void device(JsonNode device, String at, Set<String> names, List<String> problems) {
    String name = device.path("name").asText("");
    if (!dnsSubdomain(name, 63) || !DNS_LABEL.matcher(name).matches()) {
      problems.add(at + ".name " + ClientText.quote(name) + ": must be a DNS label");
    } else if (!names.add(name)) {
      problems.add(at + ".name " + ClientText.quote(name) + ": duplicate");
    }
    JsonNode attributes = device.path("attributes");
    JsonNode capacity = device.path("capacity");
    int count = attributes.size() + capacity.size();
    if (count > MAX_ATTRIBUTES_AND_CAPACITIES) {
      problems.add(
          at
              + ": "
              + count
              + " attributes and capacities, at most "
              + MAX_ATTRIBUTES_AND_CAPACITIES
              + " allowed");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = attributes.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> a = it.next();
      String where = at + ".attributes[" + ClientText.quote(a.getKey()) + "]";
      qualifiedName(a.getKey(), where, problems);
      attribute(a.getValue(), where, problems);
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = capacity.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> c = it.next();
      String where = at + ".capacity[" + ClientText.quote(c.getKey()) + "]";
      qualifiedName(c.getKey(), where, problems);
      String value = c.getValue().path("value").asText("");
      if (!QUANTITY.matcher(value).matches()) {
        problems.add(where + ".value " + ClientText.quote(value) + ": not a quantity");
      }
    }
  }

  private static void qualifiedName(String key, String where, List<String> problems) {
    int slash = key.lastIndexOf('/');
    String id = slash < 0 ? key : key.substring(slash + 1);
    if (slash >= 0 && !dnsSubdomain(key.substring(0, slash), 63)) {
      problems.add(where + ": the domain must be a DNS subdomain of at most 63 characters");
    }
    if (id.length() > 32 || !C_IDENTIFIER.matcher(id).matches()) {
      problems.add(where + ": the name must be a C identifier of at most 32 characters");
    }
  }

  private static void attribute(JsonNode value, String where, List<String> problems) {
    int kinds = 0;
    for (String kind : List.of("int", "bool", "string", "version")) {
      if (present(value.path(kind))) {
        kinds++;
      }
    }
    if (kinds != 1 || value.size() != 1) {
      problems.add(where + ": exactly one of int, bool, string, version is required");
      return;
    }
    if (value.has("int") && !value.get("int").canConvertToLong()) {
      problems.add(where + ".int: not an integer");
    } else if (value.has("bool") && !value.get("bool").isBoolean()) {
      problems.add(where + ".bool: not a boolean");
    } else if (value.has("string")) {
      JsonNode s = value.get("string");
      if (!s.isTextual() || s.asText().length() > MAX_VALUE_LENGTH) {
        problems.add(where + ".string: must be a string of at most 64 characters");
      }
    } else if (value.has("version")) {
      String v = value.get("version").asText("");
      if (v.length() > MAX_VALUE_LENGTH || !SEMVER.matcher(v).matches()) {
        problems.add(
            where + ".version " + ClientText.quote(v) + ": must be a semantic version (1.2.3)");
      }
    }
  }

  private static boolean present(JsonNode node) {
    return !node.isMissingNode() && !node.isNull();
  }

  private static boolean dnsSubdomain(String s, int max) {
    return !s.isEmpty() && s.length() <= max && DNS_SUBDOMAIN.matcher(s).matches();
  }
}
