package io.acceld.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Kubernetes manifests as the API server reads them: YAML streams of one object per document. */
final class Manifests {
  private static final YAMLMapper YAML = new YAMLMapper();

  private Manifests() {}

  static List<JsonNode> parse(String yaml) {
    try (MappingIterator<JsonNode> docs = YAML.readerFor(JsonNode.class).readValues(yaml)) {
      List<JsonNode> objects = new ArrayList<>();
      while (docs.hasNext()) {
        JsonNode doc = docs.next();
        if (doc != null && !doc.isNull() && !doc.isEmpty()) {
          objects.add(doc);
        }
      }
      return objects;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<JsonNode> read(Path file) {
    try {
      return parse(Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode only(List<JsonNode> objects, String kind) {
    List<JsonNode> found =
        objects.stream().filter(o -> kind.equals(o.path("kind").asText())).toList();
    if (found.size() != 1) {
      throw new AssertionError("expected one " + kind + ", found " + found.size());
    }
    return found.get(0);
  }
}
