package io.acceld.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The rules of the CDI project's spec schema (its {@code schema.json} and {@code defs.json},
 * draft-07), written out for the shapes a spec holds, so the agent checks a spec without shipping a
 * schema engine: required keys, the type of every known key, integer ranges, and string maps. Keys
 * the schema does not name are allowed, as there. A test holds these rules to the schema itself.
 * Beyond the schema, {@link #runtimeViolations} adds what container runtimes enforce when they load
 * a spec.
 */
final class CdiSchema {
  private static final long UINT32_MAX = 4294967295L;

  /** CDI's kind: {@code vendor/class}, each starting and ending with a letter or digit. */
  private static final Pattern KIND =
      Pattern.compile(
          "[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?/[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?");

  /**
   * CDI's device name: letters, digits and {@code _.:-}, starting and ending with one of the first.
   */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?");

  private CdiSchema() {}

  /** Where {@code spec} (a parsed document, see JsonTrees) breaks the schema; empty if nowhere. */
  static List<String> violations(Object spec) {
    List<String> out = new ArrayList<>();
    if (!(spec instanceof Map<?, ?> root)) {
      out.add("the document is not an object");
      return out;
    }
    require(root, "", out, "cdiVersion", "kind", "devices");
    string(root, "", "cdiVersion", out);
    string(root, "", "kind", out);
    stringMap(root, "", "annotations", out);
    for (Map<?, ?> device : objects(root, "", "devices", out)) {
      String at = "/devices/" + indexIn(root.get("devices"), device);
      require(device, at, out, "name", "containerEdits");
      string(device, at, "name", out);
      stringMap(device, at, "annotations", out);
      containerEdits(device, at, "containerEdits", out);
    }
    return out;
  }

  /**
   * What a runtime refuses even when the schema holds: a kind or device name CDI does not allow, a
   * device name twice, and spec-wide {@code containerEdits} of the wrong shape (the schema leaves
   * them out; runtimes parse them as a device's).
   */
  static List<String> runtimeViolations(Object spec) {
    List<String> out = new ArrayList<>();
    if (!(spec instanceof Map<?, ?> root)) {
      return out;
    }
    containerEdits(root, "", "containerEdits", out);
    if (root.get("kind") instanceof String kind && !KIND.matcher(kind).matches()) {
      out.add("/kind " + kind + " is not vendor/class");
    }
    if (root.get("devices") instanceof List<?> devices) {
      List<String> names = new ArrayList<>();
      for (Object d : devices) {
        if (d instanceof Map<?, ?> device && device.get("name") instanceof String name) {
          if (!NAME.matcher(name).matches()) {
            out.add("device name " + name + " has characters CDI does not allow");
          } else if (names.contains(name)) {
            out.add("device name " + name + " appears twice");
          }
          names.add(name);
        }
      }
    }
    return out;
  }

  private static void containerEdits(Map<?, ?> parent, String at, String key, List<String> out) {
    if (!parent.containsKey(key)) {
      return;
    }
    if (!(parent.get(key) instanceof Map<?, ?> edits)) {
      out.add(at + "/" + key + " is not an object");
      return;
    }
    String here = at + "/" + key;
    array(edits, here, "env", out);
    for (Map<?, ?> node : objects(edits, here, "deviceNodes", out)) {
      String n = here + "/deviceNodes/" + indexIn(edits.get("deviceNodes"), node);
      require(node, n, out, "path");
      for (String k : List.of("path", "hostPath", "permissions", "type")) {
        string(node, n, k, out);
      }
      integer(node, n, "major", Long.MIN_VALUE, Long.MAX_VALUE, out);
      integer(node, n, "minor", Long.MIN_VALUE, Long.MAX_VALUE, out);
      integer(node, n, "uid", 0, UINT32_MAX, out);
      integer(node, n, "gid", 0, UINT32_MAX, out);
    }
    for (Map<?, ?> mount : objects(edits, here, "mounts", out)) {
      String m = here + "/mounts/" + indexIn(edits.get("mounts"), mount);
      require(mount, m, out, "hostPath", "containerPath");
      for (String k : List.of("hostPath", "containerPath", "type")) {
        string(mount, m, k, out);
      }
      strings(mount, m, "options", out);
    }
    for (Map<?, ?> hook : objects(edits, here, "hooks", out)) {
      String h = here + "/hooks/" + indexIn(edits.get("hooks"), hook);
      require(hook, h, out, "hookName", "path");
      string(hook, h, "hookName", out);
      string(hook, h, "path", out);
      strings(hook, h, "args", out);
      strings(hook, h, "env", out);
      integer(hook, h, "timeout", 0, UINT32_MAX, out);
    }
    if (edits.containsKey("intelRdt")) {
      if (!(edits.get("intelRdt") instanceof Map<?, ?> rdt)) {
        out.add(here + "/intelRdt is not an object");
      } else {
        for (String k : List.of("closID", "l3CacheSchema", "memBwSchema")) {
          string(rdt, here + "/intelRdt", k, out);
        }
        bool(rdt, here + "/intelRdt", "enableCMT", out);
        bool(rdt, here + "/intelRdt", "enableMBM", out);
      }
    }
  }

  private static void require(Map<?, ?> object, String at, List<String> out, String... keys) {
    for (String k : keys) {
      if (!object.containsKey(k)) {
        out.add((at.isEmpty() ? "the document" : at) + " has no " + k);
      }
    }
  }

  private static void string(Map<?, ?> object, String at, String key, List<String> out) {
    if (object.containsKey(key) && !(object.get(key) instanceof String)) {
      out.add(at + "/" + key + " is not a string");
    }
  }

  private static void bool(Map<?, ?> object, String at, String key, List<String> out) {
    if (object.containsKey(key) && !(object.get(key) instanceof Boolean)) {
      out.add(at + "/" + key + " is not a boolean");
    }
  }

  private static void integer(
      Map<?, ?> object, String at, String key, long min, long max, List<String> out) {
    if (!object.containsKey(key)) {
      return;
    }
    Object v = object.get(key);
    boolean whole = v instanceof Long || (v instanceof Double d && d == Math.rint(d));
    if (!whole) {
      out.add(at + "/" + key + " is not an integer");
      return;
    }
    double value = ((Number) v).doubleValue();
    if (v instanceof Long l ? l < min || l > max : value < min || value > max) {
      out.add(at + "/" + key + " is out of range");
    }
  }

  private static void array(Map<?, ?> object, String at, String key, List<String> out) {
    if (object.containsKey(key) && !(object.get(key) instanceof List<?>)) {
      out.add(at + "/" + key + " is not an array");
    }
  }

  private static void strings(Map<?, ?> object, String at, String key, List<String> out) {
    if (!object.containsKey(key)) {
      return;
    }
    if (!(object.get(key) instanceof List<?> list)) {
      out.add(at + "/" + key + " is not an array");
      return;
    }
    for (int i = 0; i < list.size(); i++) {
      if (!(list.get(i) instanceof String)) {
        out.add(at + "/" + key + "/" + i + " is not a string");
      }
    }
  }

  private static void stringMap(Map<?, ?> object, String at, String key, List<String> out) {
    if (!object.containsKey(key)) {
      return;
    }
    if (!(object.get(key) instanceof Map<?, ?> map)) {
      out.add(at + "/" + key + " is not an object");
      return;
    }
    map.forEach(
        (k, v) -> {
          if (!String.valueOf(k).isEmpty() && !(v instanceof String)) {
            out.add(at + "/" + key + "/" + k + " is not a string");
          }
        });
  }

  /** The objects of array {@code key}; anything else in it, or a non-array, is a violation. */
  private static List<Map<?, ?>> objects(
      Map<?, ?> object, String at, String key, List<String> out) {
    List<Map<?, ?>> objects = new ArrayList<>();
    if (!object.containsKey(key)) {
      return objects;
    }
    if (!(object.get(key) instanceof List<?> list)) {
      out.add(at + "/" + key + " is not an array");
      return objects;
    }
    for (int i = 0; i < list.size(); i++) {
      if (list.get(i) instanceof Map<?, ?> m) {
        objects.add(m);
      } else {
        out.add(at + "/" + key + "/" + i + " is not an object");
      }
    }
    return objects;
  }

  private static int indexIn(Object list, Object element) {
    List<?> l = (List<?>) list;
    for (int i = 0; i < l.size(); i++) {
      if (l.get(i) == element) {
        return i;
      }
    }
    return -1;
  }
}
