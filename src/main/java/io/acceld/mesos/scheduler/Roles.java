package io.acceld.mesos.scheduler;

import io.acceld.util.ClientText;
import java.util.Optional;

/** Mesos's rules for a role name ({@code roles::validate}), with its messages. */
final class Roles {
  private Roles() {}

  /** Why {@code role} is not a valid role, or empty. */
  static Optional<String> problem(String role) {
    if (role.equals("*")) {
      return Optional.empty();
    }
    String shown = ClientText.quote(role);
    if (role.isEmpty()) {
      return Optional.of("Empty role name is invalid");
    }
    if (role.startsWith("/")) {
      return Optional.of("Role " + shown + " cannot start with a slash");
    }
    if (role.endsWith("/")) {
      return Optional.of("Role " + shown + " cannot end with a slash");
    }
    if (role.contains("//")) {
      return Optional.of("Role " + shown + " cannot contain two adjacent slashes");
    }
    for (String part : role.split("/")) {
      if (part.equals(".") || part.equals("..")) {
        return Optional.of("Role " + shown + " cannot have '.' or '..' as a component");
      }
      if (part.startsWith("-")) {
        return Optional.of("Role " + shown + " cannot have a component that starts with '-'");
      }
      if (part.equals("*")) {
        return Optional.of("Role " + shown + " cannot have '*' as a component");
      }
      for (int i = 0; i < part.length(); i++) {
        char c = part.charAt(i);
        if (c <= ' ' || c == 0x7f) {
          return Optional.of("Role " + shown + " cannot include whitespace or control characters");
        }
      }
    }
    return Optional.empty();
  }
}
