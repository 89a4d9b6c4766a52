package io.acceld.util;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Documents which lock guards a field or must be held to call a method, as {@code
 * javax.annotation.concurrent.GuardedBy} does, without depending on an artifact that only arrives
 * transitively. {@code value} names the lock: a field ({@code "lock"}), {@code "this"}, or an outer
 * instance ({@code "Outer.this"}). Nothing checks it; it is there for the reader.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface GuardedBy {
  String value();
}
