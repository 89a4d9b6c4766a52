package io.acceld.proto;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.util.Comparator;
import java.util.stream.Collectors;

/** Renders generated descriptors as short strings, for comparing them to the field tables. */
final class Shapes {
  private Shapes() {}

  /** "NAME=number, ..." in declaration order (the first value is the proto2 default). */
  static String values(EnumDescriptor e) {
    return e.getValues().stream()
        .map(v -> v.getName() + "=" + v.getNumber())
        .collect(Collectors.joining(", "));
  }

  /** "name=number, ..." ordered by field number. */
  static String fields(Descriptor m) {
    return m.getFields().stream()
        .sorted(Comparator.comparingInt(FieldDescriptor::getNumber))
        .map(f -> f.getName() + "=" + f.getNumber())
        .collect(Collectors.joining(", "));
  }
}
